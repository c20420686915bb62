package web

import (
	"net/http"
	"strconv"
	"strings"
)

// Mount returns the handler `charter serve` runs: the UI (when ui is not
// nil) under Prefix, everything else to api; `GET /` from a browser (an
// Accept header naming text/html) is redirected to the UI, while API
// clients keep getting the API's answer.
func Mount(api, ui http.Handler) http.Handler {
	if ui == nil {
		return api
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == Prefix:
			http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
		case strings.HasPrefix(p, Prefix+"/"):
			ui.ServeHTTP(w, r)
		case p == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && acceptsHTML(r):
			http.Redirect(w, r, Prefix+"/", http.StatusFound)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// acceptsHTML reports whether r's Accept header names text/html.
func acceptsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(mt), "text/html") {
			continue
		}
		q := 1.0
		for _, kv := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}
