package web

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// Prefix is the path the UI is served under.
const Prefix = "/ui"

// Options configures the UI. The zero value is usable.
type Options struct {
	// Auth, when set, makes visitors sign in with the API's credentials
	// and decides their actions as the API decides its endpoints; nil
	// leaves the UI open, as the API is then.
	Auth *auth.Authenticator
	// Clock is the time pages are rendered at: countdowns and "days
	// left" (default: the Service's clock, registry.WithClock).
	Clock func() time.Time
	// Logger receives unexpected errors (default slog.Default()).
	Logger *slog.Logger
	// SessionTTL is how long a sign-in lasts (default 8 hours).
	SessionTTL time.Duration
}

//go:embed templates static
var files embed.FS

// ui is the handler.
type ui struct {
	svc      *registry.Service
	opts     Options
	log      *slog.Logger
	pages    map[string]*template.Template
	assets   *assets
	sessions *sessions
	csrfKey  []byte
	mux      *http.ServeMux
	pending  pendingLogins
}

// pageNames are the pages; each has templates/pages/NAME.html defining
// "title" and "content".
var pageNames = []string{"subjects", "subject", "compare", "deprecations", "deprecation", "lineage", "pii", "teams", "team", "audit", "rules", "login", "error"}

// New returns the UI over svc, to be mounted at Prefix+"/" (see Mount).
// It fails when a template does not parse or a page lacks its template.
func New(svc *registry.Service, opts Options) (http.Handler, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = svc.Now
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 8 * time.Hour
	}
	a, err := loadAssets(files)
	if err != nil {
		return nil, err
	}
	u := &ui{svc: svc, opts: opts, log: opts.Logger, assets: a, sessions: newSessions(opts.SessionTTL), csrfKey: make([]byte, 32)}
	if _, err := rand.Read(u.csrfKey); err != nil {
		return nil, fmt.Errorf("web: CSRF key: %w", err)
	}
	if u.pages, err = parsePages(files, u.funcs()); err != nil {
		return nil, err
	}
	u.mux = http.NewServeMux()
	u.routes()
	cop := http.NewCrossOriginProtection()
	return u.secure(cop.Handler(u.identify(u.mux))), nil
}

// parsePages parses the layout and partials with each page.
func parsePages(fsys fs.FS, funcs template.FuncMap) (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(funcs).ParseFS(fsys, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(fsys, "templates/pages/"+name+".html"); err != nil {
			return nil, fmt.Errorf("web: parse page %s: %w", name, err)
		}
		for _, def := range []string{"title", "content"} {
			if t.Lookup(def) == nil {
				return nil, fmt.Errorf("web: page %s does not define %q", name, def)
			}
		}
		out[name] = t
	}
	return out, nil
}

// routes registers every page and action.
func (u *ui) routes() {
	m := u.mux
	m.HandleFunc("GET "+Prefix+"/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/subjects", http.StatusFound)
	})
	m.HandleFunc("GET "+Prefix+"/static/{file}", u.static)
	m.HandleFunc("GET "+Prefix+"/login", u.loginPage)
	m.HandleFunc("POST "+Prefix+"/login", u.login)
	m.HandleFunc("POST "+Prefix+"/logout", u.logout)
	m.HandleFunc("GET "+Prefix+"/login/oidc", u.oidcStart)
	m.HandleFunc("GET "+Prefix+"/login/oidc/callback", u.oidcCallback)

	m.HandleFunc("GET "+Prefix+"/subjects", u.subjectsPage)
	m.HandleFunc("GET "+Prefix+"/subjects/{subject}", u.subjectPage)
	m.HandleFunc("GET "+Prefix+"/subjects/{subject}/compare", u.comparePage)
	m.HandleFunc("GET "+Prefix+"/subjects/{subject}/lineage", u.lineagePage)
	m.HandleFunc("GET "+Prefix+"/subjects/{subject}/deprecations/{item}", u.deprecationPage)
	m.HandleFunc("GET "+Prefix+"/deprecations", u.deprecationsPage)
	m.HandleFunc("GET "+Prefix+"/pii", u.piiPage)
	m.HandleFunc("GET "+Prefix+"/teams", u.teamsPage)
	m.HandleFunc("GET "+Prefix+"/teams/{team}", u.teamPage)
	m.HandleFunc("GET "+Prefix+"/audit", u.auditPage)
	m.HandleFunc("GET "+Prefix+"/rules", u.rulesPage)

	// Actions (actions.go): each posts to the same Service call as the
	// API's endpoint, after the same authorization.
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/deprecations", u.deprecate)
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/extensions", u.grantExtension)
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/extensions/revoke", u.revokeExtension)
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/dismissals", u.dismiss)
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/dismissals/withdraw", u.withdrawDismissal)
	m.HandleFunc("POST "+Prefix+"/subjects/{subject}/owner", u.setOwner)

	m.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		u.fail(w, r, srerr.New(srerr.ErrNotFound, "There is no page at %s", r.URL.Path))
	})
}

// csp is the Content-Security-Policy of every answer: this origin's own
// stylesheet, script and images only; no inline script or style, no
// frames, forms posting to this origin only.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secure sets the security headers of every answer.
func (u *ui) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// view is what every page template gets.
type view struct {
	Title string
	// Nav names the navigation entry of the page.
	Nav       string
	Principal *auth.Principal
	AuthOn    bool
	CSRF      string
	Now       time.Time
	Flash     string
	Path      string
	CSS, JS   string
	Icon      string
	Data      any
}

// flashes are the messages an action's redirect may ask for (?done=),
// so that no text from the URL is shown.
var flashes = map[string]string{
	"deprecated":  "The field is deprecated; its countdown has started.",
	"extended":    "The extension is granted.",
	"revoked":     "The extension is revoked.",
	"dismissed":   "The dismissal is recorded.",
	"withdrawn":   "The dismissal is withdrawn.",
	"owner":       "The owner is saved.",
	"signedout":   "You are signed out.",
	"signedin":    "You are signed in.",
	"sessionover": "Your session has ended; sign in again.",
}

// render executes page with data and answers it with an ETag: a request
// whose If-None-Match names the same body gets 304.
func (u *ui) render(w http.ResponseWriter, r *http.Request, status int, page, title, nav string, data any) {
	t, ok := u.pages[page]
	if !ok {
		u.log.Error("web: no such page", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	id := identityOf(r)
	v := view{Title: title, Nav: nav, Principal: id.principal, AuthOn: u.opts.Auth != nil, CSRF: u.csrfToken(w, r),
		Now: u.opts.Clock().UTC(), Flash: flashes[r.URL.Query().Get("done")], Path: r.URL.RequestURI(),
		CSS: u.assets.path("app.css"), JS: u.assets.path("app.js"), Icon: u.assets.path("favicon.svg"), Data: data}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		u.log.Error("web: render", "page", page, "error", err.Error())
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Vary", "Cookie, Authorization")
	if status == http.StatusOK && r.Method == http.MethodGet {
		sum := sha256.Sum256(buf.Bytes())
		etag := `"` + hex.EncodeToString(sum[:12]) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, no-cache")
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatch(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// errorView is the error page's data.
type errorView struct {
	Status  int
	Code    int
	Message string
	Back    string
}

// fail answers err as an error page with the status of its srerr code
// (an unexpected error is 500 and logged, its text not shown).
func (u *ui) fail(w http.ResponseWriter, r *http.Request, err error) {
	code, status, msg := srerr.Code(err)
	if status >= http.StatusInternalServerError {
		u.log.Error("web: request failed", "path", r.URL.Path, "error", err.Error())
	}
	var denied *auth.DeniedError
	if errors.As(err, &denied) {
		code, status, msg = srerr.ErrForbidden.Code, http.StatusForbidden, "Forbidden: "+denied.Reason
	}
	back := r.Header.Get("Referer")
	if p, err := url.Parse(back); err != nil || !strings.HasPrefix(p.Path, Prefix+"/") || p.Host != r.Host {
		back = Prefix + "/subjects"
	}
	u.render(w, r, status, "error", http.StatusText(status), "", errorView{Status: status, Code: code, Message: msg, Back: back})
}

// subjectURL is the UI's page of subject, with more path segments.
func subjectURL(subject string, more ...string) string {
	p := Prefix + "/subjects/" + url.PathEscape(subject)
	for _, m := range more {
		p += "/" + m
	}
	return p
}

// safeReturn is the page an action's form asks to return to: a path of
// the UI, else fallback.
func safeReturn(raw, fallback string) string {
	p, err := url.Parse(raw)
	if err != nil || p.Scheme != "" || p.Host != "" || !strings.HasPrefix(p.Path, Prefix+"/") || strings.HasPrefix(raw, "//") || path.Clean(p.Path) != strings.TrimSuffix(p.Path, "/") && p.Path != Prefix+"/" {
		return fallback
	}
	return p.RequestURI()
}

// withDone adds ?done=key to target.
func withDone(target, key string) string {
	p, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := p.Query()
	q.Set("done", key)
	p.RawQuery = q.Encode()
	return p.RequestURI()
}
