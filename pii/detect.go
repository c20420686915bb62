package pii

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/charter-dev/charter/compat"
)

// Confidence says how sure a match is.
type Confidence uint8

// Confidence levels, weakest first.
const (
	Low    Confidence = 1 // a quasi-identifier (a city), identifying only in combination
	Medium Confidence = 2 // an ambiguous word ("address") or a phrase in the doc
	High   Confidence = 3 // an unambiguous word in the name ("email", "ssn")
)

// String returns "low", "medium" or "high".
func (c Confidence) String() string {
	switch c {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return fmt.Sprintf("Confidence(%d)", uint8(c))
}

// MarshalText writes "low", "medium" or "high".
func (c Confidence) MarshalText() ([]byte, error) {
	if c < Low || c > High {
		return nil, fmt.Errorf("invalid confidence %d", uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads "low", "medium" or "high" (any case).
func (c *Confidence) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "low":
		*c = Low
	case "medium":
		*c = Medium
	case "high":
		*c = High
	default:
		return fmt.Errorf("invalid confidence %q: want low, medium or high", b)
	}
	return nil
}

// Match is one reason to think a field holds personal data.
type Match struct {
	PatternID  string     `json:"patternId"`
	Category   Category   `json:"category"`
	Confidence Confidence `json:"confidence"`
	// Source is "name" or "doc": where the words were found.
	Source string `json:"source"`
	// Words are the matched words, snake_case ("email_address").
	Words string `json:"words"`
	// Reason is one sentence naming the words and the pattern.
	Reason string `json:"reason"`
}

// Detection is a field with the patterns it matches.
type Detection struct {
	Field   compat.Field `json:"field"`
	Matches []Match      `json:"matches"`
}

// Words that, before the matched words, make a name describe personal
// data rather than hold it: is_email_verified, has_phone, num_addresses.
var prefixMeta = wordSet("is", "has", "num", "number", "count", "total", "max", "min", "avg",
	"should", "can", "allow", "enable", "use", "send", "needs", "require", "requires")

// Words that, after the matched words, do the same: email_verified,
// phone_type, ip_version, address_count, email_sent_at, ip_country.
var suffixMeta = wordSet("count", "counts", "cnt", "num", "verified", "verification", "validated", "valid",
	"confirmed", "confirmation", "status", "type", "types", "kind", "format", "template", "enabled", "disabled",
	"opt", "optin", "optout", "opted", "consent", "consents", "preference", "preferences", "pref", "prefs",
	"provider", "domain", "length", "len", "flag", "flags", "at", "time", "timestamp", "date", "changed",
	"updated", "created", "sent", "bounced", "bounce", "opened", "clicked", "delivered", "version", "protocol",
	"policy", "required", "visible", "visibility", "source", "label", "id", "ids", "uuid", "key", "index", "idx",
	"field", "column", "error", "errors", "reason", "score", "risk", "reputation", "country", "isp", "asn",
	"range", "mask", "prefix", "port", "allowlist", "whitelist", "blacklist", "blocklist", "ttl", "regex",
	"pattern", "validator", "rule", "rules", "config", "settings", "setting", "exists", "present", "missing",
	"result", "results", "check", "checked", "match", "matched", "precision", "accuracy")

// personWords, as the parent of a bare "name" field, make it a person's
// name: customer.name, patient.name.
var personWords = wordSet("customer", "user", "person", "patient", "employee", "contact", "member",
	"passenger", "guest", "recipient", "sender", "holder", "cardholder", "owner", "beneficiary", "driver",
	"buyer", "applicant", "student", "client", "subscriber", "account_holder", "traveler", "traveller", "author", "profile")

func wordSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// Detector flags fields whose names or docs look like personal data. It
// matches words, not substrings ("tel" matches "home_tel", not "hotel"),
// checks the field's value kind against the pattern (an email is never a
// boolean), ignores names that describe personal data instead of holding
// it (email_verified, phone_count, is_email…) and names on its allow-list.
// It is immutable and safe for concurrent use.
type Detector struct {
	patterns []Pattern
	names    map[string][]seqRef // first word → name sequences
	docs     map[string][]seqRef // first word → doc phrases
	allow    [][]string
}

type seqRef struct {
	pat   int
	words []string
	weak  bool
}

// Option configures NewDetector.
type Option func(*detectorOptions)

type detectorOptions struct {
	allow          []string
	noDefaultAllow bool
	patterns       []Pattern
}

// WithAllowList adds names that are never flagged. Each is a name in any
// naming style ("emailOptIn", "email_opt_in"); a field is skipped when its
// name's words contain the entry's words in order, so "server_address"
// also covers "kafka_server_address".
func WithAllowList(names ...string) Option {
	return func(o *detectorOptions) { o.allow = append(o.allow, names...) }
}

// WithoutDefaultAllowList drops the built-in allow-list (DefaultAllowList).
func WithoutDefaultAllowList() Option {
	return func(o *detectorOptions) { o.noDefaultAllow = true }
}

// WithPatterns adds patterns to the built-in ones (Patterns). An ID must
// be new.
func WithPatterns(ps ...Pattern) Option {
	return func(o *detectorOptions) { o.patterns = append(o.patterns, ps...) }
}

// NewDetector returns a detector with the built-in patterns and
// allow-list changed by opts. It fails on a pattern without an ID or
// words, and on a duplicate ID.
func NewDetector(opts ...Option) (*Detector, error) {
	var o detectorOptions
	for _, opt := range opts {
		opt(&o)
	}
	d := &Detector{names: map[string][]seqRef{}, docs: map[string][]seqRef{}}
	seen := map[string]bool{}
	for _, p := range append(slices.Clone(builtinPatterns), o.patterns...) {
		if p.ID == "" || len(p.Names)+len(p.Weak)+len(p.Docs) == 0 {
			return nil, fmt.Errorf("new detector: pattern %q needs an ID and words", p.ID)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("new detector: pattern %s defined twice", p.ID)
		}
		seen[p.ID] = true
		if p.Kinds == 0 {
			p.Kinds = kindsText
		}
		if p.Confidence == 0 {
			p.Confidence = High
		}
		i := len(d.patterns)
		d.patterns = append(d.patterns, p)
		for _, n := range p.Names {
			d.addSeq(d.names, i, Tokens(n), false)
		}
		for _, n := range p.Weak {
			d.addSeq(d.names, i, Tokens(n), true)
		}
		for _, n := range p.Docs {
			d.addSeq(d.docs, i, docWords(n), false)
		}
	}
	allow := o.allow
	if !o.noDefaultAllow {
		allow = append(slices.Clone(defaultAllowList), allow...)
	}
	for _, a := range allow {
		if ws := Tokens(a); len(ws) > 0 {
			d.allow = append(d.allow, ws)
		}
	}
	return d, nil
}

func (d *Detector) addSeq(index map[string][]seqRef, pat int, words []string, weak bool) {
	if len(words) == 0 {
		return
	}
	index[words[0]] = append(index[words[0]], seqRef{pat: pat, words: words, weak: weak})
}

var defaultDetector = sync.OnceValue(func() *Detector {
	d, err := NewDetector()
	if err != nil {
		panic(fmt.Sprintf("pii: built-in patterns are invalid: %v", err)) // a programming error, caught by tests
	}
	return d
})

// DefaultDetector returns the detector with the built-in patterns and
// allow-list.
func DefaultDetector() *Detector { return defaultDetector() }

// Patterns returns a copy of the built-in pattern table.
func Patterns() []Pattern {
	out := slices.Clone(builtinPatterns)
	for i := range out {
		if out[i].Kinds == 0 {
			out[i].Kinds = kindsText
		}
		if out[i].Confidence == 0 {
			out[i].Confidence = High
		}
	}
	return out
}

// DefaultAllowList returns a copy of the built-in allow-list.
func DefaultAllowList() []string { return slices.Clone(defaultAllowList) }

// Detect returns the patterns f matches, highest confidence first (then
// by pattern ID): one Match per pattern, from its name if it matches
// there, else from its doc. An allow-listed name matches nothing.
func (d *Detector) Detect(f compat.Field) []Match {
	name := f.Name
	if name == "" {
		name = lastSegment(f.Path)
	}
	words := Tokens(name)
	if d.allowed(words) {
		return nil
	}
	kind := KindOf(f.Type)
	var best matchSet
	strong := false
	d.scan(words, d.names, func(i, at int, ref seqRef) {
		p := &d.patterns[i]
		if p.Kinds&kind == 0 {
			return
		}
		if !p.Special && (anyIn(words[:at], prefixMeta) || anyIn(words[at+len(ref.words):], suffixMeta)) {
			return
		}
		seq := strings.Join(ref.words, "_")
		norm := strings.Join(words, "_")
		m := Match{PatternID: p.ID, Category: p.Category, Confidence: p.Confidence, Source: "name", Words: seq,
			Reason: fmt.Sprintf("name %q contains %q: %s", norm, seq, p.Purpose)}
		if ref.weak {
			m.Confidence = lower(p.Confidence)
			m.Reason = fmt.Sprintf("name %q contains %q, a word with other meanings too: %s", norm, seq, p.Purpose)
		} else {
			strong = true
		}
		best.keep(i, m, ref.weak)
	})
	if strong {
		// "mac_address" is a MAC address, not a postal one.
		best.dropWeak()
	}
	if len(words) == 1 && words[0] == "name" {
		d.personName(f, kind, &best)
	}
	if f.Doc != "" {
		d.scan(docWords(f.Doc), d.docs, func(i, _ int, ref seqRef) {
			p := &d.patterns[i]
			if best.has(i) || p.Kinds&kind == 0 {
				return
			}
			phrase := strings.Join(ref.words, " ")
			best.keep(i, Match{PatternID: p.ID, Category: p.Category, Confidence: min(p.Confidence, Medium), Source: "doc",
				Words: strings.Join(ref.words, "_"), Reason: fmt.Sprintf("doc mentions %q: %s", phrase, p.Purpose)}, false)
		})
	}
	return best.sorted()
}

// matchSet keeps the best match per pattern; fields match few patterns,
// so a slice beats a map.
type matchSet []matchEntry

type matchEntry struct {
	pat  int
	m    Match
	weak bool // a Weak name match
}

func (s matchSet) has(pat int) bool {
	for _, e := range s {
		if e.pat == pat {
			return true
		}
	}
	return false
}

// keep records m for pattern pat unless a more confident match, or an as
// confident one on at least as many characters, is already kept.
func (s *matchSet) keep(pat int, m Match, weak bool) {
	for i := range *s {
		e := &(*s)[i]
		if e.pat != pat {
			continue
		}
		if e.m.Confidence > m.Confidence || (e.m.Confidence == m.Confidence && len(e.m.Words) >= len(m.Words)) {
			return
		}
		e.m, e.weak = m, weak
		return
	}
	*s = append(*s, matchEntry{pat, m, weak})
}

func (s *matchSet) dropWeak() {
	*s = slices.DeleteFunc(*s, func(e matchEntry) bool { return e.weak })
}

// sorted returns the matches, highest confidence first, then by ID.
func (s matchSet) sorted() []Match {
	if len(s) == 0 {
		return nil
	}
	out := make([]Match, len(s))
	for i, e := range s {
		out[i] = e.m
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Confidence != out[b].Confidence {
			return out[a].Confidence > out[b].Confidence
		}
		return out[a].PatternID < out[b].PatternID
	})
	return out
}

// personName matches a bare "name" whose parent field names a person
// ("customer.name") as PII_PERSON_NAME with Medium confidence.
func (d *Detector) personName(f compat.Field, kind Kind, best *matchSet) {
	parent := Tokens(lastSegment(parentPath(f.Path)))
	person := false
	var buf [4]string
	for _, w := range parent {
		for _, form := range forms(w, buf[:0]) {
			person = person || personWords[form]
		}
	}
	if !person {
		return
	}
	i := slices.IndexFunc(d.patterns, func(p Pattern) bool { return p.ID == "PII_PERSON_NAME" })
	if i < 0 || d.patterns[i].Kinds&kind == 0 {
		return
	}
	p := d.patterns[i]
	best.keep(i, Match{PatternID: p.ID, Category: p.Category, Confidence: Medium, Source: "name", Words: "name",
		Reason: fmt.Sprintf("name %q inside %q: %s", "name", strings.Join(parent, "_"), p.Purpose)}, false)
}

func lower(c Confidence) Confidence {
	if c > Low {
		return c - 1
	}
	return Low
}

// scan calls fn for every indexed sequence that occurs in words, with
// the index of its first word.
func (d *Detector) scan(words []string, index map[string][]seqRef, fn func(pat, at int, ref seqRef)) {
	var buf [4]string
	for at := range words {
		for _, w := range forms(words[at], buf[:0]) {
			for _, ref := range index[w] {
				if at+len(ref.words) <= len(words) && seqAt(words, at, ref.words) {
					fn(ref.pat, at, ref)
				}
			}
		}
	}
}

// seqAt reports whether seq occurs in words at position at, comparing
// each word under its forms.
func seqAt(words []string, at int, seq []string) bool {
	var buf [4]string
	for k := 1; k < len(seq); k++ {
		if !slices.Contains(forms(words[at+k], buf[:0]), seq[k]) {
			return false
		}
	}
	return true
}

func (d *Detector) allowed(words []string) bool {
	for _, a := range d.allow {
		for at := 0; at+len(a) <= len(words); at++ {
			ok := true
			for k, w := range a {
				if words[at+k] != w {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

func anyIn(words []string, set map[string]bool) bool {
	for _, w := range words {
		if set[w] {
			return true
		}
	}
	return false
}

// Scan runs Detect over fields and returns the fields that match, in
// order.
func (d *Detector) Scan(fields []compat.Field) []Detection {
	var out []Detection
	for _, f := range fields {
		if ms := d.Detect(f); len(ms) > 0 {
			out = append(out, Detection{Field: f, Matches: ms})
		}
	}
	return out
}

// lastSegment returns the last name of a path: ".a.b<T>.c[]" → "c".
func lastSegment(path string) string {
	p := trimMarkers(path)
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// parentPath returns the path of the field that contains the one at path:
// ".a.b" → ".a", ".a[].b" → ".a", ".a<T>.b" → ".a".
func parentPath(path string) string {
	p := trimMarkers(path)
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return trimMarkers(p[:i])
	}
	return ""
}

// trimMarkers removes trailing "[]", "{}" and "<T>" segments.
func trimMarkers(p string) string {
	for {
		switch {
		case strings.HasSuffix(p, "[]"), strings.HasSuffix(p, "{}"):
			p = p[:len(p)-2]
		case strings.HasSuffix(p, ">"):
			i := strings.LastIndexByte(p, '<')
			if i < 0 {
				return p
			}
			p = p[:i]
		default:
			return p
		}
	}
}

// pattern returns the detector's pattern with the given ID.
func (d *Detector) pattern(id string) (Pattern, bool) {
	for _, p := range d.patterns {
		if p.ID == id {
			return p, true
		}
	}
	return Pattern{}, false
}
