package exporter

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
)

// An exporter whose destination is its own registry (schema linking
// within one registry, or through a URL that reaches its replicas) would
// copy its own copies, and those of its sibling exporters, without end;
// and with contextType NONE it would put the source's own subjects in
// IMPORT mode. So each cycle first asks the destination whether it is
// this registry (isSelf); then
//   - an exporter of contextType NONE into its own registry fails
//     (errSelfNone), before it writes anything;
//   - the destination contexts of every exporter into this registry (or
//     not known yet not to be) are left out of every exporter's subjects
//     (excludedContexts), with the contexts under them.

// selfEntry is what the runner knows of whether an exporter's
// destination is this registry: self, known (false until a probe got an
// answer) and when it was asked.
type selfEntry struct {
	self, known bool
	at          time.Time
}

// selfTTL is how long the answer of a self probe is used before the
// destination is asked again.
const selfTTL = time.Minute

// errSelfNone fails an exporter of contextType NONE into its own
// registry.
var errSelfNone = errors.New("the destination (" + ConfigURL + ") is this registry itself and contextType NONE would copy its subjects onto themselves (putting them in IMPORT mode) and then copy its copies: use contextType AUTO or CUSTOM, or another registry")

// selfKey names the destination of e in the self cache: its name, URL
// and context, whose change asks again.
func selfKey(e Exporter) string {
	return e.Name + "\x00" + e.Config[ConfigURL] + "\x00" + string(e.ContextType) + "\x00" + e.Context
}

// isSelf reports whether d, exporter e's destination, is this registry:
// it holds an exporter of e's name with e's definition (type, context,
// subjects, renaming and destination URL), which only a registry sharing
// e's store does. A destination that does not answer, or does not let
// the exporter's credentials read its exporters (401, 403), leaves it
// unknown (its destination context stays excluded, see
// excludedContexts); any other answer (404, another definition) is not
// this registry.
func (r *Runner) isSelf(ctx context.Context, e Exporter, d *destination) bool {
	key := selfKey(e)
	now := r.opts.Now()
	r.mu.Lock()
	c, ok := r.self[key]
	r.mu.Unlock()
	if ok && c.known && now.Sub(c.at) < selfTTL {
		return c.self
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var got Exporter
	err := d.do(ctx, http.MethodGet, []string{"exporters", e.Name}, nil, nil, &got)
	var answered *destError
	switch {
	case err == nil:
		c = selfEntry{self: sameDefinition(e, got), known: true, at: now}
	case errors.As(err, &answered) && answered.Status < 500 && answered.Status != http.StatusTooManyRequests &&
		answered.Status != http.StatusUnauthorized && answered.Status != http.StatusForbidden:
		c = selfEntry{known: true, at: now}
	default:
		c.at = now // unknown: the last answer, if any, stands
	}
	r.mu.Lock()
	r.self[key] = c
	r.mu.Unlock()
	return c.self
}

// sameDefinition reports whether b, as a registry answers it, is a's
// definition.
func sameDefinition(a, b Exporter) bool {
	norm := func(s []string) []string {
		if len(s) == 0 {
			return AllSubjects
		}
		return s
	}
	return a.Name == b.Name && strings.EqualFold(string(a.ContextType), string(b.ContextType)) && a.Context == b.Context &&
		a.SubjectRenameFormat == b.SubjectRenameFormat && slices.Equal(norm(a.Subjects), norm(b.Subjects)) &&
		a.Config[ConfigURL] == b.Config[ConfigURL]
}

// excludedContexts returns the destination contexts of the exporters of
// all (e's registry's) that copy into this registry or are not known
// not to: subjects in them, or under them, are copies, which no
// exporter exports.
func (r *Runner) excludedContexts(all []Stored) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, o := range all {
		if o.ContextType == ContextNone {
			continue // refused into its own registry
		}
		if c, ok := r.self[selfKey(o.Exporter)]; ok && c.known && !c.self {
			continue
		}
		if dc := o.DestinationContext("", r.opts.ClusterID); dc != "" {
			out = append(out, dc)
		}
	}
	return out
}

// inContexts reports whether subject is in one of contexts or under one.
func inContexts(subject string, contexts []string) bool {
	sctx, _ := splitContext(subject)
	for _, dc := range contexts {
		if sctx == dc || strings.HasPrefix(sctx, dc+".") {
			return true
		}
	}
	return false
}
