package api

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// Schema contexts in URLs, as Confluent's ContextFilter: a request under
// /contexts/{ctx}/ is served as the same route without the prefix, its
// subjects qualified with the context. The subject after /subjects/ (and
// /deks/), and the one after a root /config/ or /mode/, becomes
// ":.ctx:subject" unless it is qualified already; a root /config or /mode
// without a subject becomes /config/:.ctx: (the context's level); the
// ?subject= of /schemas/ids/... and the ?subjectPrefix= of /schemas and
// /subjects (absent: the context alone) are qualified the same way. The
// default context (".", or ":.:") qualifies nothing. /contexts/{ctx}
// itself (DELETE) is left alone. Every request also has an explicit
// default context removed from its path's subject: ":.:name" is "name",
// as Confluent's QualifiedSubject normalises it.

// contextName is what a context name may hold after its dot, as the peer
// registries accept (letters, digits, '.', '_', '-'; at most 255).
var contextName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)

// contextPaths rewrites r's URL as the comment above says before next
// routes it; an invalid context name is 42208.
func (s *server) contextPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); !strings.HasPrefix(p, "/contexts/") && !mayNameDefaultContext(p) {
			next.ServeHTTP(w, r) // the common case: no query parsed, nothing allocated
			return
		}
		path, query, err := rewriteContextPath(r.URL.EscapedPath(), r.URL.Query())
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		if path != r.URL.EscapedPath() || query != nil {
			u := *r.URL
			decoded, err := url.PathUnescape(path)
			if err != nil {
				writeError(w, r, s.log, errNotFound)
				return
			}
			u.Path, u.RawPath = decoded, path
			if query != nil {
				u.RawQuery = query.Encode()
			}
			r2 := r.Clone(r.Context())
			r2.URL = &u
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

// rewriteContextPath returns the escaped path that path (escaped) is
// served as, and the query to serve it with (nil when q stays as it is).
func rewriteContextPath(path string, q url.Values) (string, url.Values, error) {
	qualifier, rest := "", path
	tail, prefixed := strings.CutPrefix(path, "/contexts/")
	if !prefixed && !mayNameDefaultContext(path) {
		return path, nil, nil // nothing to rewrite: the common case, without allocating
	}
	if prefixed {
		seg, after, more := strings.Cut(tail, "/")
		if !more || after == "" {
			return path, nil, nil // the context itself: DELETE /contexts/{ctx}
		}
		name, err := url.PathUnescape(seg)
		if err != nil {
			return "", nil, srerr.New(srerr.ErrInvalidSubject, "Invalid context %q", seg)
		}
		if qualifier, err = contextQualifier(name); err != nil {
			return "", nil, err
		}
		rest = "/" + after
	}
	segs := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	subjectNext, rootLevel := false, false
	for i, seg := range segs {
		if subjectNext {
			segs[i] = qualifySegment(qualifier, seg)
			subjectNext = false
			rootLevel = false
			continue
		}
		root := i == 0 && (seg == "config" || seg == "mode")
		if seg == "subjects" || seg == "deks" || root {
			subjectNext, rootLevel = true, root
		}
	}
	if rootLevel && qualifier != "" {
		segs = append(segs, qualifier) // /contexts/.ctx/config: the context's level
	}
	out := "/" + strings.Join(segs, "/")
	if !prefixed {
		return out, nil, nil
	}
	return out, qualifyQuery(qualifier, segs, q), nil
}

// contextQualifier returns the subject prefix of context name (".ctx",
// "ctx", ":.ctx:"): ":.ctx:", or "" for the default context. A name with
// other characters than contextName allows is 42208.
func contextQualifier(name string) (string, error) {
	n := registry.NormalizeContextName(name)
	if n == registry.DefaultContext {
		return "", nil
	}
	if !contextName.MatchString(n[1:]) {
		return "", srerr.New(srerr.ErrInvalidSubject,
			"Invalid context %q: a context name holds letters, digits, '.', '_' and '-' (at most 255)", name)
	}
	return ":" + n + ":", nil
}

// qualifySegment returns the escaped subject segment seg qualified with
// qualifier unless it names its context itself (":.x:", ":*:"), and
// without an explicit default context (":.:").
func qualifySegment(qualifier, seg string) string {
	subject, err := url.PathUnescape(seg)
	if err != nil {
		return seg // the router answers it
	}
	was := subject
	switch {
	case strings.HasPrefix(subject, ":.:"):
		subject = registry.NormalizeSubject(subject)
	case strings.HasPrefix(subject, ":.") || strings.HasPrefix(subject, ":*:"):
	default:
		subject = qualifier + subject
	}
	if subject == "" || subject == was {
		return seg
	}
	return url.PathEscape(subject)
}

// qualifyQuery returns q with the subject parameters of the route segs
// qualified, or nil when the route has none.
func qualifyQuery(qualifier string, segs []string, q url.Values) url.Values {
	qualify := func(v string) string {
		if strings.HasPrefix(v, ":.") || strings.HasPrefix(v, ":*:") {
			return v
		}
		return qualifier + v
	}
	route := strings.Join(segs, "/")
	switch {
	case strings.HasPrefix(route, "schemas/ids/"):
		q.Set("subject", qualify(q.Get("subject")))
	case route == "schemas" || route == "subjects":
		prefixes := q["subjectPrefix"]
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for i, p := range prefixes {
			prefixes[i] = qualify(p)
		}
		q["subjectPrefix"] = prefixes
	default:
		return nil
	}
	return q
}

// mayNameDefaultContext reports whether escaped path may hold ":.:" (the
// default context named explicitly), escaped or not.
func mayNameDefaultContext(path string) bool {
	return strings.Contains(path, ":.:") || strings.Contains(path, "%3A") || strings.Contains(path, "%3a")
}
