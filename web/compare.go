package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// note is a finding or a change placed on a line of one side.
type note struct {
	Kind    string // finding or change
	RuleID  string
	Path    string
	Message string
	Detail  string
	// Evidence is a finding's counterexample, nil for a change or when
	// no event was read.
	Evidence *noteEvidence
}

// noteEvidence is what the generated events showed at a finding: the
// smallest event found that breaks there and what the reader did, or
// that none of them broke there.
type noteEvidence struct {
	Events int
	// Event is the counterexample as the writer wrote it (indented
	// JSON), "" when no event broke here.
	Event  string
	Class  string // loss or refused
	Path   string
	Reader string
}

// evidenceTimeout bounds the events the compare page reads, and
// evidenceSlotWait how long it waits for an evidence slot (shared with
// the REST API: evidence.Acquire) before it shows the page without them.
const (
	evidenceTimeout  = 2 * time.Second
	evidenceSlotWait = 100 * time.Millisecond
)

// sideLine is a line of one side of the comparison with its notes.
type sideLine struct {
	codeLine
	Notes []note
}

type compareView struct {
	Subject  string
	Versions []int
	From, To int
	Cmp      registry.Comparison
	Left     []sideLine
	Right    []sideLine
	// General are the findings and changes no line carries.
	General  []note
	Findings int
	Level    string
	Levels   []option
	// Evidence summarises the generated events read across the change;
	// "" when none were read.
	Evidence string
	// EvidenceBreaking is true when an event was lost or refused.
	EvidenceBreaking bool
}

// comparePage shows two versions side by side (?from=&to=, default the
// two latest), each compatibility finding and change on the line of the
// field it concerns: the newer side's, else (a removed field) the older.
func (u *ui) comparePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	subject := r.PathValue("subject")
	vs, err := u.svc.SubjectVersions(ctx, subject, registry.SubjectVersionsQuery{})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v := compareView{Subject: subject}
	for _, x := range vs {
		v.Versions = append(v.Versions, x.Version)
	}
	v.To = v.Versions[len(v.Versions)-1]
	v.From = v.To
	if len(v.Versions) > 1 {
		v.From = v.Versions[len(v.Versions)-2]
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"from", &v.From}, {"to", &v.To}} {
		if s := r.URL.Query().Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				u.fail(w, r, srerr.New(srerr.ErrInvalidVersion, "Invalid version %q", s))
				return
			}
			*p.dst = n
		}
	}
	v.Level = r.URL.Query().Get("level")
	for _, l := range compat.Levels {
		v.Levels = append(v.Levels, option{Value: string(l), Selected: string(l) == v.Level})
	}
	cmp, err := u.svc.Governance().Compare(ctx, subject, v.From, v.To, compat.Level(v.Level))
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.Cmp = cmp
	fromText := schemaText(cmp.From.Schema.Type, cmp.From.Schema.Text)
	toText := schemaText(cmp.To.Schema.Type, cmp.To.Schema.Text)
	v.Left = sides(highlight(cmp.From.Schema.Type, cmp.From.Schema.Text, fromText, cmp.FromFields))
	v.Right = sides(highlight(cmp.To.Schema.Type, cmp.To.Schema.Text, toText, cmp.ToFields))
	place := func(n note) {
		path := fieldPath(n.Path)
		for _, side := range [][]sideLine{v.Right, v.Left} {
			for i := range side {
				if path != "" && side[i].Field == path {
					side[i].Notes = append(side[i].Notes, n)
					return
				}
			}
		}
		v.General = append(v.General, n)
	}
	rep, summary, breaking := readEvidence(ctx, cmp)
	v.Evidence, v.EvidenceBreaking = summary, breaking
	detail := func(f compat.Finding) string {
		switch f.Direction {
		case compat.DirBackward:
			return "BACKWARD: version " + strconv.Itoa(cmp.To.Version) + " reading data written with version " + strconv.Itoa(cmp.From.Version)
		case compat.DirForward:
			return "FORWARD: version " + strconv.Itoa(cmp.From.Version) + " reading data written with version " + strconv.Itoa(cmp.To.Version)
		}
		return string(f.Direction)
	}
	for _, f := range cmp.Findings {
		place(note{Kind: "finding", RuleID: f.RuleID, Path: f.Path, Message: f.Message, Detail: detail(f), Evidence: findingEvidence(rep, f)})
	}
	if rep != nil {
		// The evidence rules' findings: losses every rule accepts,
		// which an event proved (warnings; the message holds the
		// event).
		for _, f := range rep.Findings {
			place(note{Kind: "finding", RuleID: f.RuleID, Path: f.Path, Message: f.Message, Detail: "a warning proved by an event; " + detail(f)})
		}
	}
	for _, c := range cmp.Changes {
		if c.Bump == governance.BumpNone && c.Kind == governance.KindSchemaAdded {
			continue
		}
		place(note{Kind: "change", RuleID: c.Kind, Path: c.Path, Message: c.Text, Detail: string(c.Bump)})
	}
	v.Findings = len(cmp.Findings)
	u.render(w, r, http.StatusOK, "compare", subject+": version "+strconv.Itoa(cmp.From.Version)+" and "+strconv.Itoa(cmp.To.Version), "subjects", v)
}

// readEvidence reads generated events across the compared pair
// (compat/evidence, 100 events per direction, within evidenceTimeout),
// at the comparison's level without _TRANSITIVE (one earlier version),
// and summarises them: how many read back equal, or how many broke. A
// pair the engine cannot read says why; rep is then nil.
func readEvidence(ctx context.Context, cmp registry.Comparison) (rep *evidence.Report, summary string, breaking bool) {
	if cmp.FromParsed == nil || cmp.ToParsed == nil || cmp.From.Version == cmp.To.Version {
		return nil, "", false
	}
	level := compat.Level(strings.TrimSuffix(string(cmp.Level), "_TRANSITIVE"))
	if level == compat.None {
		return nil, "", false
	}
	ctx, cancel := context.WithTimeout(ctx, evidenceTimeout)
	defer cancel()
	release, ok := evidence.Acquire(ctx, evidenceSlotWait)
	if !ok {
		return nil, "events not read: " + strings.TrimPrefix(evidence.Busy, "evidence: "), false
	}
	defer release()
	r, err := evidence.Check(ctx, level, cmp.ToParsed, []compat.Previous{{Version: cmp.From.Version, Schema: cmp.FromParsed}}, evidence.Options{})
	if err != nil {
		return nil, "events not read: " + strings.TrimPrefix(err.Error(), "evidence: "), false
	}
	var n, equal, defaulted, lossy, refused int
	partial := false
	for _, p := range r.Pairs {
		n += p.Result.Events
		equal += p.Result.Equal
		defaulted += p.Result.Defaulted
		lossy += p.Result.Lossy
		refused += p.Result.Refused
		partial = partial || p.Result.Partial
	}
	if n == 0 && !partial {
		return nil, "events not read: " + evidence.NoValidEvent, false
	}
	pairs := rule.Plural(len(r.Pairs), "direction")
	if lossy+refused == 0 {
		how := "equal"
		switch {
		case defaulted > 0 && equal == 0:
			how = "(all with the reader's default)"
		case defaulted > 0:
			how = fmt.Sprintf("(%d equal, %d with the reader's default)", equal, defaulted)
		}
		summary = fmt.Sprintf("%d of %s read back %s in %s", equal+defaulted, rule.Plural(n, "generated event"), how, pairs)
	} else {
		summary = fmt.Sprintf("%s read in %s: %d equal, %d with the reader's default, %d with loss, %d refused", rule.Plural(n, "generated event"), pairs, equal, defaulted, lossy, refused)
	}
	if partial {
		summary += fmt.Sprintf(" (cut short by the %v bound)", evidenceTimeout)
	}
	if nr := r.NotRead(); len(nr) > 0 {
		summary += "; not read: " + strings.Join(nr, "; ")
	}
	return &r, summary, lossy+refused > 0
}

// findingEvidence is the counterexample rep holds for f, nil without
// events for f's pair.
func findingEvidence(rep *evidence.Report, f compat.Finding) *noteEvidence {
	if rep == nil {
		return nil
	}
	res, ok := rep.Pair(f.Direction, f.Version)
	if !ok || res.Events == 0 {
		return nil
	}
	ev := &noteEvidence{Events: res.Events}
	if o, ok := rep.Counterexample(f); ok {
		var b bytes.Buffer
		if json.Indent(&b, o.Event, "", "  ") != nil {
			b.Reset()
			b.Write(o.Event)
		}
		ev.Event, ev.Class, ev.Path, ev.Reader = b.String(), o.Class.String(), o.Path, o.Reader
	}
	return ev
}

func sides(lines []codeLine) []sideLine {
	out := make([]sideLine, len(lines))
	for i, l := range lines {
		out[i] = sideLine{codeLine: l}
	}
	return out
}

// fieldPath turns the JSON pointer of a JSON Schema finding
// ("#/properties/customer/properties/email", "#/required/qty") into the
// field path the fields use (".customer.email", ".qty"); other paths are
// returned as they are.
func fieldPath(p string) string {
	if !strings.HasPrefix(p, "#/") {
		return p
	}
	segs := strings.Split(strings.TrimPrefix(p, "#/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "required":
			if i+1 < len(segs) {
				b.WriteString("." + strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i+1]))
				i++
			}
		case "items":
			b.WriteString("[]")
		}
	}
	return b.String()
}
