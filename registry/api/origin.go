package api

import (
	"net/http"

	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// guardOrigin refuses what a web page in a user's browser could make the
// browser send to the registry: a cross-origin request with an unsafe
// method (a form or a no-cors fetch needs no preflight), unless its
// origin is one of Options.CORSOrigins (net/http's CrossOriginProtection
// decides, from Sec-Fetch-Site or Origin; clients that are not browsers
// send neither and pass). With Options.LoopbackOnly (a registry without
// authentication), it also refuses a Host header that is not a loopback
// name, so that a page whose DNS name was rebound to 127.0.0.1 cannot
// reach the registry. Both answer 403 (40301) with the reason.
func (s *server) guardOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	for _, o := range s.opts.CORSOrigins {
		if o != "*" {
			_ = cop.AddTrustedOrigin(o) // validated by serve's flags
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.LoopbackOnly && !auth.LoopbackHost(r.Host) {
			forbidden(w, r, s, srerr.New(srerr.ErrForbidden, "Host %q is not a loopback name; a registry without authentication answers 127.0.0.1, [::1] and localhost only", r.Host))
			return
		}
		if err := cop.Check(r); err != nil {
			forbidden(w, r, s, srerr.New(srerr.ErrForbidden, "a cross-origin %s from a browser page (origin %q) is refused; list the origin with --cors-origin to allow it", r.Method, r.Header.Get("Origin")))
			return
		}
		next.ServeHTTP(w, r)
	})
}
