package evidence

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
)

// The evidence rules: Charter's own, one per change that every registry's
// rules accept (Charter's included, as it reproduces Confluent's
// verdicts) but that loses data or refuses events at run time. Each fires
// only when an event generated for the pair shows the loss: Read found it
// and the counterexample is in the finding's outcome. IDs never change.
const (
	// RuleProtoStringBytesInvalidUTF8: the writer's field is bytes (or a
	// proto2 string) and the reader's is a string its runtime validates
	// as UTF-8; an event with invalid UTF-8 there is refused.
	RuleProtoStringBytesInvalidUTF8 = "PROTO_STRING_BYTES_INVALID_UTF8"
	// RuleProtoClosedEnumValueRemoved: the reader's closed (proto2) enum
	// lacks a number the writer sends; the reader drops it to the
	// unknown fields and the field reads as unset.
	RuleProtoClosedEnumValueRemoved = "PROTO_CLOSED_ENUM_VALUE_REMOVED"
	// RuleProtoRepeatedToSingular: a repeated string, bytes or message
	// field is singular in the reader, which keeps the last value (or
	// merges the messages).
	RuleProtoRepeatedToSingular = "PROTO_REPEATED_TO_SINGULAR"
	// RuleJSONOneOfOverlap: a document valid under the writer matches
	// several alternatives of a reader oneOf, which then fails.
	RuleJSONOneOfOverlap = "JSON_ONEOF_OVERLAPPING_ALTERNATIVE"
	// RuleJSONPatternPropertiesChanged: the reader's patternProperties
	// refuse a property the writer allows.
	RuleJSONPatternPropertiesChanged = "JSON_PATTERN_PROPERTIES_CHANGED"
	// RuleJSONPropertyNamesChanged: the reader's propertyNames refuse a
	// property name the writer allows.
	RuleJSONPropertyNamesChanged = "JSON_PROPERTY_NAMES_CHANGED"
	// RuleJSONContainsChanged: the reader's contains (minContains,
	// maxContains) refuses an array the writer allows.
	RuleJSONContainsChanged = "JSON_CONTAINS_CHANGED"
	// RuleJSONDependentSchemasChanged: the reader's dependentSchemas (or
	// schema dependencies) refuse an object the writer allows.
	RuleJSONDependentSchemasChanged = "JSON_DEPENDENT_SCHEMAS_CHANGED"
	// RuleJSONRequiredThroughAllOf: the reader requires, through an
	// allOf part, a property the writer does not always send.
	RuleJSONRequiredThroughAllOf = "JSON_REQUIRED_THROUGH_ALLOF"
	// RuleJSONPatternNarrowed: the reader's pattern refuses a string the
	// writer's pattern allows (patterns are compared as text by the
	// rules, so a narrower pattern with other text passes them).
	RuleJSONPatternNarrowed = "JSON_PATTERN_NARROWED"
)

const sourceIssue = "Charter's own (issue 17, verdicts with evidence): fired only when a generated event written with the writer shows it"

// Rules returns the evidence rules, in the order of the constants above.
// The Protobuf ones run in every profile: events are read the same way
// whichever rules a subject selects.
func Rules() []rule.Rule { return slices.Clone(rules) }

var rules = []rule.Rule{
	{
		ID: RuleProtoStringBytesInvalidUTF8, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Warning, Profiles: protobuf.ProfileNames(),
		Purpose: "A bytes field (or proto2 string) must not become a string that the reader validates as UTF-8: an event carrying invalid UTF-8 there is refused.",
		Source:  sourceIssue + `; Protocol Buffers language guide, "Scalar Value Types": a proto3 string "must always contain UTF-8 encoded or 7-bit ASCII text"; parsers reject invalid UTF-8`,
	},
	{
		ID: RuleProtoClosedEnumValueRemoved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Warning, Profiles: protobuf.ProfileNames(),
		Purpose: "A closed (proto2) enum must keep every value the writer sends: the reader drops an unknown value to the unknown fields and the field reads as unset.",
		Source:  sourceIssue + `; Protocol Buffers "Enum Behavior": closed enums store unrecognized values in the unknown field set`,
	},
	{
		ID: RuleProtoRepeatedToSingular, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Warning, Profiles: protobuf.ProfileNames(),
		Purpose: "A repeated string, bytes or message field must stay repeated: a singular reader keeps only the last value, or merges the messages.",
		Source:  sourceIssue + `; Protocol Buffers encoding, "Last One Wins": a non-repeated field seen several times keeps the last value (messages merge)`,
	},
	{
		ID: RuleJSONOneOfOverlap, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "A oneOf alternative the reader adds must not overlap the others: a document that matches two alternatives fails oneOf.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Core §10.2.1.3: oneOf is valid if the instance is valid against exactly one subschema`,
	},
	{
		ID: RuleJSONPatternPropertiesChanged, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "The reader's patternProperties must accept every property the writer allows; Confluent's rules do not compare their schemas.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Core §10.3.2.2 (patternProperties)`,
	},
	{
		ID: RuleJSONPropertyNamesChanged, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "The reader's propertyNames must accept every property name the writer allows; Confluent's rules do not compare it.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Core §10.3.2.4 (propertyNames)`,
	},
	{
		ID: RuleJSONContainsChanged, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "The reader's contains, minContains and maxContains must accept every array the writer allows; Confluent's rules do not compare them.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Core §10.3.1.3 (contains) and Validation §6.4.4-5`,
	},
	{
		ID: RuleJSONDependentSchemasChanged, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "The reader's dependentSchemas (schema dependencies) must accept every object the writer allows; Confluent's rules compare only dependentRequired.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Core §10.2.2.4 (dependentSchemas)`,
	},
	{
		ID: RuleJSONRequiredThroughAllOf, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "A property the reader requires through an allOf part must be one the writer always sends; Confluent's rules do not follow required into allOf.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Validation §6.5.3 (required) and Core §10.2.1.1 (allOf)`,
	},
	{
		ID: RuleJSONPatternNarrowed, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Warning,
		Purpose: "The reader's pattern must match every string the writer's allows; the rules compare patterns as text, so a narrower pattern written differently passes them.",
		Source:  sourceIssue + `; JSON Schema 2020-12 Validation §6.3.3 (pattern)`,
	},
}

// Violations returns a violation per outcome of res that proves an
// evidence rule, with the counterexample in the message: one per rule
// and place, so that outcomes of one change at nested paths (an added
// contains refuses an empty array at the array and an item at its
// contains) give one finding, the first seen.
func Violations(res Result) []compat.Violation {
	var out []compat.Violation
	for _, o := range res.Outcomes {
		if o.RuleID == "" {
			continue
		}
		if slices.ContainsFunc(out, func(v compat.Violation) bool { return v.RuleID == o.RuleID && Attributable(o.Path, v.Path) }) {
			continue
		}
		out = append(out, compat.Violation{RuleID: o.RuleID, Path: o.Path, Message: o.message()})
	}
	return out
}

func (o Outcome) message() string {
	s := fmt.Sprintf("the event %s, valid for the writer, is %s by the reader: %s", compact(o.Event), map[Class]string{Lossy: "read with loss", Refused: "refused"}[o.Class], o.Reader)
	if len(o.Read) > 0 {
		s += fmt.Sprintf("; it reads %s", compact(o.Read))
	}
	return s
}

func compact(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// Pair is the evidence of one reader/writer pair that a level compares.
type Pair struct {
	// Direction is BACKWARD (the new schema reads the earlier one's
	// events) or FORWARD (the earlier schema reads the new one's).
	Direction compat.Direction `json:"direction"`
	// Version is the earlier version.
	Version int    `json:"version"`
	Result  Result `json:"result"`
}

// Report is the evidence of a Check.
type Report struct {
	Pairs []Pair `json:"pairs"`
	// Findings are the evidence rules' findings, at the rules' default
	// severity (warning): an outcome an event proved.
	Findings []compat.Finding `json:"findings,omitempty"`
}

// Check reads events of every pair that compat.Check compares at level
// (the same directions and versions, newest first) and returns their
// evidence and the evidence rules' findings. It is the one entry point
// for a gate: charter diff --evidence, charter check --evidence and the
// registry's compatibility call with evidence=true. ctx bounds the time,
// shared fairly: each pair gets the time left divided by the pairs left;
// a pair cut short has Partial set.
func Check(ctx context.Context, level compat.Level, next compat.Schema, previous []compat.Previous, opts Options) (Report, error) {
	var rep Report
	if level == compat.None || len(previous) == 0 {
		return rep, nil
	}
	against := previous
	if !level.Transitive() {
		against = previous[len(previous)-1:]
	}
	type pair struct {
		dir            compat.Direction
		version        int
		reader, writer compat.Schema
	}
	var pairs []pair
	for i := len(against) - 1; i >= 0; i-- {
		p := against[i]
		if level.Backward() {
			pairs = append(pairs, pair{compat.DirBackward, p.Version, next, p.Schema})
		}
		if level.Forward() {
			pairs = append(pairs, pair{compat.DirForward, p.Version, p.Schema, next})
		}
	}
	for k, p := range pairs {
		// Each pair gets an equal share of the time left, so that one
		// slow pair (a huge N, a huge enum) cannot leave the next
		// with nothing; a pair done early leaves its time to the rest.
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok {
			pctx, cancel = context.WithTimeout(ctx, time.Until(deadline)/time.Duration(len(pairs)-k))
		}
		res, err := Read(pctx, p.reader, p.writer, opts)
		cancel()
		if err != nil {
			return rep, err
		}
		rep.Pairs = append(rep.Pairs, Pair{Direction: p.dir, Version: p.version, Result: res})
		for _, v := range Violations(res) {
			rep.Findings = append(rep.Findings, compat.Finding{Violation: v, Direction: p.dir, Version: p.version})
		}
	}
	return rep, nil
}

// Counterexample returns the outcome of rep that shows finding f: an
// outcome of f's pair (direction and version) at f's own path, or at a
// path within it or enclosing it (see [Attributable]), the closest
// first (the same evidence rule, then the same path, then the deepest
// related one). ok is false when no outcome of the pair is there: the
// rules saw a break that no generated event isolates (no event reached
// it, or every event broke first elsewhere). It never lends a finding
// the outcome of another field: charter diff, charter check, the
// registry and the web UI all attribute through it.
func (rep Report) Counterexample(f compat.Finding) (Outcome, bool) {
	for _, p := range rep.Pairs {
		if p.Direction != f.Direction || p.Version != f.Version {
			continue
		}
		var best *Outcome
		bestScore := -1
		for i := range p.Result.Outcomes {
			o := &p.Result.Outcomes[i]
			if !Attributable(o.Path, f.Path) {
				continue
			}
			score := 1
			switch {
			case o.RuleID != "" && o.RuleID == f.RuleID:
				score = 3
			case o.Path == f.Path:
				score = 2
			}
			if score > bestScore {
				best, bestScore = o, score
			}
		}
		if best != nil {
			return *best, true
		}
	}
	return Outcome{}, false
}

// NotIsolated is what a gate says of a breaking finding Counterexample
// finds no outcome for.
const NotIsolated = "no generated event isolates this finding"

// Attributable reports whether an outcome at path o shows a finding at
// path f: the same path, or one an ancestor of the other at a segment
// boundary (".a" and ".a.b" or ".a[]", "#/properties/v" and
// "#/properties/v/oneOf/0"; never ".a" and ".ab", nor two siblings).
// A JSON Schema outcome inside a definition ("#/$defs/node/properties/v")
// also shows a finding whose path ends with the part after the
// definition ("#/properties/kids/items/properties/v"), as the rules
// expand $refs where the validator names the definition.
func Attributable(o, f string) bool {
	if o == "" || f == "" {
		return false
	}
	if within(o, f) || within(f, o) {
		return true
	}
	for _, defs := range []string{"/$defs/", "/definitions/"} {
		i := strings.LastIndex(o, defs)
		if i < 0 {
			continue
		}
		rest := o[i+len(defs):]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			continue
		}
		tail := rest[j:] // "/properties/v"
		if strings.HasSuffix(f, tail) {
			return true
		}
	}
	return false
}

// within reports whether path p is anc or lies inside it.
func within(p, anc string) bool {
	if !strings.HasPrefix(p, anc) {
		return false
	}
	if len(p) == len(anc) {
		return true
	}
	switch anc[len(anc)-1] {
	case '.', '/', '[', '{', '<':
		return true
	}
	switch p[len(anc)] {
	case '.', '/', '[', '{', '<': // '<': an Avro union branch, ".u<U299>"
		return true
	}
	return false
}

// Unexplained returns, per pair, the breaking outcomes of rep that no
// finding of fs (the rules' findings of the same check) nor any evidence
// rule explains: a loss or refusal every rule accepts, shown as
// information (its counterexample) rather than passed over in a count.
func (rep Report) Unexplained(fs []compat.Finding) []Unexplained {
	var out []Unexplained
	for _, p := range rep.Pairs {
		for _, o := range p.Result.Outcomes {
			if o.RuleID != "" {
				continue
			}
			explained := false
			for _, f := range fs {
				if f.Direction == p.Direction && f.Version == p.Version && Attributable(o.Path, f.Path) {
					explained = true
					break
				}
			}
			if !explained {
				out = append(out, Unexplained{Direction: p.Direction, Version: p.Version, Outcome: o})
			}
		}
	}
	return out
}

// Unexplained is a breaking outcome of one pair that no finding names.
type Unexplained struct {
	Direction compat.Direction `json:"direction"`
	Version   int              `json:"version"`
	Outcome   Outcome          `json:"outcome"`
}

// Line is the outcome in one line, as a gate shows it.
func (u Unexplained) Line() string {
	what := map[Class]string{Lossy: "loses data", Refused: "is refused"}[u.Outcome.Class]
	s := fmt.Sprintf("evidence %s: no rule names this: %s %s at %s: %s", u.Direction, compact(u.Outcome.Event), what, u.Outcome.Path, u.Outcome.Reader)
	if len(u.Outcome.Read) > 0 {
		s += fmt.Sprintf("; it reads %s", compact(u.Outcome.Read))
	}
	return s
}

// Summary is one pair's counts in one line, true to each class:
//
//	100 events: 100 read back equal
//	100 events: 100 read back (40 equal, 60 with the reader's default)
//	100 events: 34 read back (34 equal), 66 with loss
//	not read: no event valid for the writer could be generated
//
// A pair without events is never called compatible.
func (r Result) Summary() string {
	if r.NotRead != "" {
		return "not read: " + r.NotRead
	}
	var b strings.Builder
	b.WriteString(plural(r.Events, "event") + ": ")
	back := r.Equal + r.Defaulted
	switch {
	case r.Defaulted == 0:
		fmt.Fprintf(&b, "%d read back equal", back)
	case r.Equal == 0:
		fmt.Fprintf(&b, "%d read back (all with the reader's default)", back)
	default:
		fmt.Fprintf(&b, "%d read back (%d equal, %d with the reader's default)", back, r.Equal, r.Defaulted)
	}
	if r.Lossy > 0 {
		fmt.Fprintf(&b, ", %d with loss", r.Lossy)
	}
	if r.Refused > 0 {
		fmt.Fprintf(&b, ", %d refused", r.Refused)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// NotRead returns, for each pair of rep that read no event, why
// ("FORWARD against version 3: no event valid for the writer could be
// generated"; "FORWARD: …" for version 0, a file), in the pairs' order;
// nil when every pair read events.
func (rep Report) NotRead() []string {
	var out []string
	for _, p := range rep.Pairs {
		switch {
		case p.Result.NotRead == "":
		case p.Version == 0: // a file or directory, not a registered version
			out = append(out, fmt.Sprintf("%s: %s", p.Direction, p.Result.NotRead))
		default:
			out = append(out, fmt.Sprintf("%s against version %d: %s", p.Direction, p.Version, p.Result.NotRead))
		}
	}
	return out
}

// Pair returns the evidence of the pair of direction dir against version,
// ok false when Check did not compare it.
func (rep Report) Pair(dir compat.Direction, version int) (Result, bool) {
	for _, p := range rep.Pairs {
		if p.Direction == dir && p.Version == version {
			return p.Result, true
		}
	}
	return Result{}, false
}

// RuleFindings lifts the evidence rules' findings of rep into the gate's
// findings for subject, at each rule's default severity (warning: they
// report and pass unless a policy raises them).
func RuleFindings(subject string, rep Report) []rule.Finding {
	var out []rule.Finding
	for _, f := range rep.Findings {
		sev := rule.Warning
		for _, r := range rules {
			if r.ID == f.RuleID {
				sev = r.Severity
			}
		}
		out = append(out, rule.Finding{
			RuleID: f.RuleID, Severity: sev, Subject: subject, Path: f.Path, Message: f.Message,
			Hint:    "keep the writer's declaration, or add a new field or alternative instead of changing this one",
			Version: f.Version, Direction: string(f.Direction),
		})
	}
	return out
}
