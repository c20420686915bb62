package api

import (
	"net/http"
	"strconv"
	"strings"
)

// CORS: browser tools on other origins (schema viewers, API explorers
// reading /openapi.json) may call the API when their origin is listed in
// Options.CORSOrigins. A listed origin gets its own origin back in
// Access-Control-Allow-Origin with Access-Control-Allow-Credentials: true
// (its requests may carry a basic or bearer credential); the entry "*"
// lets every other origin read without credentials (Allow-Origin "*",
// never with Allow-Credentials). Other origins get no CORS headers, so
// browsers keep them out. Preflights (OPTIONS with
// Access-Control-Request-Method) from an allowed origin are answered 204
// before authentication, as browsers send them without credentials.

// corsMaxAge is how long browsers may cache a preflight answer, in
// seconds.
const corsMaxAge = 600

var (
	corsMethods = "GET, POST, PUT, DELETE"
	// corsHeaders are the request headers a browser may send.
	corsHeaders = strings.Join([]string{"Accept", "Authorization", "Content-Type", ActorHeader, RequestIDHeader,
		acceptUnknownHeader}, ", ")
	// corsExposed are the response headers scripts may read.
	corsExposed = strings.Join([]string{"Charter-Finding", "Charter-Semver", RequestIDHeader, "Retry-After",
		"WWW-Authenticate"}, ", ")
)

// corsPolicy is the parsed Options.CORSOrigins.
type corsPolicy struct {
	listed map[string]bool // exact origins: credentials allowed
	any    bool            // "*": every other origin, without credentials
}

func newCORSPolicy(origins []string) *corsPolicy {
	p := &corsPolicy{listed: map[string]bool{}}
	for _, o := range origins {
		o = strings.TrimSuffix(strings.TrimSpace(o), "/")
		switch o {
		case "":
		case "*":
			p.any = true
		default:
			p.listed[strings.ToLower(o)] = true
		}
	}
	if len(p.listed) == 0 && !p.any {
		return nil
	}
	return p
}

// cors adds the CORS headers of allowed origins and answers their
// preflights; without CORSOrigins it is next itself.
func (s *server) cors(next http.Handler) http.Handler {
	p := newCORSPolicy(s.opts.CORSOrigins)
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		credentials := p.listed[strings.ToLower(origin)]
		switch {
		case credentials:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
		case p.any:
			h.Set("Access-Control-Allow-Origin", "*")
		default:
			next.ServeHTTP(w, r) // not allowed: no CORS headers
			return
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			if rec, ok := w.(*statusRecorder); ok && s.metrics != nil {
				rec.route = s.metrics.preflight
			}
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposed)
		next.ServeHTTP(w, r)
	})
}
