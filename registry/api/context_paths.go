package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// Schema contexts in URLs, as Confluent's ContextFilter: a request under
// /contexts/{ctx}/ is served as the same route without the prefix, its
// subjects qualified with the context. The subject after /subjects/ (and
// /deks/, so /governance/subjects/{s} and /compatibility/subjects/{s}
// too, and the Pact Broker's /pacts/provider/{provider}), and the one
// after a root /config/ or /mode/, becomes
// ":.ctx:subject" unless it is qualified already; a root /config or /mode
// without a subject becomes /config/:.ctx: (the context's level); the
// ?subject= of every route (/schemas/ids/..., where an absent one is the
// context alone, and the governance and lineage routes) and the
// ?subjectPrefix= of /schemas, /subjects (absent: the context alone) and
// the KEK list are qualified the same way. The default context (".", or
// ":.:") qualifies nothing. /contexts/{ctx} itself (DELETE) is left
// alone, and /contexts/ is the list of contexts (ContextFilterTest's
// testContextsRoot). Every request also has the subjects of its path and
// its ?subject= normalised as Confluent's QualifiedSubject.normalize
// does (registry.NormalizeSubject): ":.:name" is "name", ":.ctx" is
// ":.ctx:"; a path subject that names the default context alone (":.:")
// is the root level on /config and /mode, and 42208 elsewhere.

// contextPaths rewrites r's URL as the comment above says before next
// routes it; an invalid context name is 42208.
func (s *server) contextPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); !strings.HasPrefix(p, "/contexts/") && !mayNameContext(p) && !mayNameContext(r.URL.RawQuery) {
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
	if !prefixed && !mayNameContext(path) && (q == nil || !queryNamesContext(q)) {
		return path, nil, nil // nothing to rewrite: the common case, without allocating
	}
	if prefixed {
		if tail == "" {
			return "/contexts", nil, nil // the contexts list, as Confluent keeps /contexts/
		}
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
			subjectNext = false
			q, err := qualifySegment(qualifier, seg)
			if err != nil {
				return "", nil, err
			}
			if q == "" { // ":.:" alone: the default context
				if !rootLevel {
					return "", nil, srerr.New(srerr.ErrInvalidSubject,
						"Invalid subject %q: it names the default context alone, not a subject", seg)
				}
				segs, rootLevel = segs[:i], false // the root level: /config, /mode
				break
			}
			segs[i] = q
			rootLevel = false
			continue
		}
		root := i == 0 && (seg == "config" || seg == "mode")
		pactProvider := seg == "provider" && i == 2 && segs[0] == strings.TrimPrefix(PactBrokerPrefix, "/") && segs[1] == "pacts"
		if seg == "subjects" || seg == "deks" || root || pactProvider {
			subjectNext, rootLevel = true, root
		}
	}
	if rootLevel && qualifier != "" {
		segs = append(segs, qualifier) // /contexts/.ctx/config: the context's level
	}
	out := "/" + strings.Join(segs, "/")
	if !prefixed {
		return out, normalizeQuery(q), nil
	}
	return out, qualifyQuery(qualifier, segs, q), nil
}

// contextQualifier returns the subject prefix of context name (".ctx",
// "ctx", ":.ctx:"): ":.ctx:", or "" for the default context. A name that
// registry.ParseContextName refuses (the rule of qualified subjects too:
// the wildcard "*" and ":*:", colons alone, a colon or a control
// character in the name) is 42208.
func contextQualifier(name string) (string, error) {
	n, err := registry.ParseContextName(name)
	if err != nil {
		return "", err
	}
	if n == registry.DefaultContext {
		return "", nil
	}
	return ":" + n + ":", nil
}

// qualifySegment returns the escaped subject segment seg normalised
// (registry.NormalizeSubject) and qualified with qualifier unless it
// names its context itself (":.x:", ":*:"); "" when it names the default
// context alone (":.:").
func qualifySegment(qualifier, seg string) (string, error) {
	subject, err := url.PathUnescape(seg)
	if err != nil {
		return seg, nil // the router answers it
	}
	was := subject
	subject = qualifySubject(qualifier, subject)
	if subject == "" && was != "" {
		return "", nil
	}
	if subject == was {
		return seg, nil
	}
	return url.PathEscape(subject), nil
}

// qualifySubject returns subject normalised and, unless it names its
// context itself, qualified with qualifier.
func qualifySubject(qualifier, subject string) string {
	if strings.HasPrefix(subject, ":.") || strings.HasPrefix(subject, registry.AllContexts) {
		return registry.NormalizeSubject(subject)
	}
	return qualifier + subject
}

// subjectParams are the query parameters that hold a subject on any
// route: each is normalised, and qualified under a context prefix.
var subjectParams = []string{"subject"}

// qualifyQuery returns q with the subject parameters of the route segs
// qualified, or nil when the route has none: ?subject= on every route
// (the context alone on /schemas/ids/... when absent), ?subjectPrefix=
// on the subject, schema and KEK lists.
func qualifyQuery(qualifier string, segs []string, q url.Values) url.Values {
	route := strings.Join(segs, "/")
	changed := false
	for _, name := range subjectParams {
		vs := q[name]
		if len(vs) == 0 && name == "subject" && strings.HasPrefix(route, "schemas/ids/") {
			vs = []string{""}
		}
		for i, v := range vs {
			if v != "" || strings.HasPrefix(route, "schemas/ids/") {
				vs[i] = qualifySubject(qualifier, v)
			}
		}
		if len(vs) > 0 {
			q[name], changed = vs, true
		}
	}
	switch {
	case route == "schemas" || route == "subjects":
		prefixes := q["subjectPrefix"]
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for i, p := range prefixes {
			prefixes[i] = qualifySubject(qualifier, p)
		}
		q["subjectPrefix"], changed = prefixes, true
	case route == strings.TrimPrefix(dekPrefix, "/") && len(q["subjectPrefix"]) > 0:
		for i, p := range q["subjectPrefix"] {
			q["subjectPrefix"][i] = qualifySubject(qualifier, p)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	return q
}

// normalizeQuery returns q with its subject parameters normalised, or nil
// when none changes.
func normalizeQuery(q url.Values) url.Values {
	changed := false
	for _, name := range subjectParams {
		for i, v := range q[name] {
			if n := registry.NormalizeSubject(v); n != v {
				q[name][i], changed = n, true
			}
		}
	}
	if !changed {
		return nil
	}
	return q
}

// queryNamesContext reports whether a subject parameter of q may name a
// context.
func queryNamesContext(q url.Values) bool {
	for _, name := range subjectParams {
		for _, v := range q[name] {
			if strings.HasPrefix(v, ":.") {
				return true
			}
		}
	}
	return false
}

// mayNameContext reports whether escaped path (or raw query) may hold a
// qualified subject (":.x"), escaped or not.
func mayNameContext(path string) bool {
	return strings.Contains(path, ":.") || strings.Contains(path, "%3A") || strings.Contains(path, "%3a")
}
