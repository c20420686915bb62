package evidence_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
)

// TestCounterexampleAttribution reads each pair of testdata/attribution
// (old.EXT, new.EXT) at FULL and checks which outcome Report.Counterexample
// attaches to every finding, the rules' and the evidence rules': an
// outcome at the finding's path (or within it, or enclosing it), or none
// ("no generated event isolates this finding"), never one at another
// field. want.txt lists one line per finding, "RULE DIRECTION PATH ->
// OUTCOME_PATH|none"; with -update it is rewritten.
func TestCounterexampleAttribution(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "attribution", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			olds, _ := filepath.Glob(filepath.Join(dir, "old.*"))
			if len(olds) != 1 {
				t.Fatalf("want one old.EXT in %s", dir)
			}
			ext := filepath.Ext(olds[0])
			typ := formats.OfFile(olds[0])
			oldText, err := os.ReadFile(olds[0])
			if err != nil {
				t.Fatal(err)
			}
			newText, err := os.ReadFile(filepath.Join(dir, "new"+ext))
			if err != nil {
				t.Fatal(err)
			}
			prev := mustParse(t, typ, string(oldText))
			next := mustParse(t, typ, string(newText))
			e, _ := formats.ByType(typ)
			against := []compat.Previous{{Version: 1, Schema: prev}}
			ver := compat.Check(e.Format, compat.Full, next, against)
			rep, err := evidence.Check(context.Background(), compat.Full, next, against, evidence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range append(append([]compat.Finding(nil), ver.Findings...), rep.Findings...) {
				at := "none"
				if o, ok := rep.Counterexample(f); ok {
					at = o.Path
					if !evidence.Attributable(o.Path, f.Path) {
						t.Errorf("%s %s %s: counterexample at another path %s", f.RuleID, f.Direction, f.Path, o.Path)
					}
				}
				got = append(got, fmt.Sprintf("%s %s %s -> %s", f.RuleID, f.Direction, f.Path, at))
			}
			sort.Strings(got)
			wantFile := filepath.Join(dir, "want.txt")
			if *update {
				if err := os.WriteFile(wantFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(string(b), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					want = append(want, l)
				}
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("attribution:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestAttributable(t *testing.T) {
	for _, c := range []struct {
		o, f string
		want bool
	}{
		{".weight", ".weight", true},
		{".a.b", ".a", true},
		{".a", ".a.b", true},
		{".a[]", ".a", true},
		{".u", ".u<U299>", true},
		{".u<U1>", ".u<U299>", false},
		{".", ".carrier", true},
		{".ab", ".a", false},
		{".weight", ".carrier", false},
		{".Account.count", ".Account.nums", false},
		{".Order.tags", ".Order.items", false},
		{"#/properties/v/oneOf/0", "#/properties/v", true},
		{"#/properties/vv", "#/properties/v", false},
		{"#/$defs/node/properties/v", "#/properties/kids/items/properties/v", true},
		{"#/$defs/node/properties/w", "#/properties/kids/items/properties/v", false},
		{"", ".a", false},
	} {
		if got := evidence.Attributable(c.o, c.f); got != c.want {
			t.Errorf("Attributable(%q, %q) = %v, want %v", c.o, c.f, got, c.want)
		}
	}
}

// TestNotRead: a writer the generator can make no valid event for reads
// no event, and the result says why (never a compatible 0 of 0).
func TestNotRead(t *testing.T) {
	for _, c := range []struct {
		name   string
		typ    compat.SchemaType
		writer string
	}{
		{"lookahead pattern", compat.JSON, `{"type":"object","properties":{"code":{"type":"string","pattern":"^(?!x)[a-z]{3}$"}},"required":["code"]}`},
		{"required nested 30 deep", compat.JSON, strings.Repeat(`{"type":"object","required":["c"],"properties":{"c":`, 30) + `{"type":"integer"}` + strings.Repeat(`}}`, 30)},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := read(t, c.typ, c.writer, c.writer, evidence.Options{Events: 10})
			if res.Events != 0 || res.NotRead != evidence.NoValidEvent || res.Summary() != "not read: "+evidence.NoValidEvent {
				t.Errorf("%+v: %s", res, res.Summary())
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := evidence.Read(ctx, mustParse(t, compat.Avro, shipment), mustParse(t, compat.Avro, shipment), evidence.Options{})
	if err != nil || res.NotRead != evidence.NoTimeLeft {
		t.Errorf("cancelled: %+v %v", res, err)
	}
}

func TestResultSummary(t *testing.T) {
	for _, c := range []struct {
		r    evidence.Result
		want string
	}{
		{evidence.Result{Events: 1, Equal: 1}, "1 event: 1 read back equal"},
		{evidence.Result{Events: 100, Defaulted: 100}, "100 events: 100 read back (all with the reader's default)"},
		{evidence.Result{Events: 100, Equal: 40, Defaulted: 60}, "100 events: 100 read back (40 equal, 60 with the reader's default)"},
		{evidence.Result{Events: 100, Equal: 34, Lossy: 66}, "100 events: 34 read back equal, 66 with loss"},
		{evidence.Result{Events: 10, Equal: 2, Defaulted: 3, Lossy: 1, Refused: 4}, "10 events: 5 read back (2 equal, 3 with the reader's default), 1 with loss, 4 refused"},
		{evidence.Result{NotRead: evidence.NoValidEvent}, "not read: " + evidence.NoValidEvent},
	} {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// TestCheckSharesTheTimeBound: with a huge N under a deadline, every
// pair a level compares gets events (each an equal share of the time
// left), none is called compatible on zero events, and the bound is
// kept even where hamba's resolution of a large enum costs the square of
// its symbols (it is abandoned when the bound ends).
func TestCheckSharesTheTimeBound(t *testing.T) {
	big := func(n int) string {
		syms := make([]string, n)
		for i := range syms {
			syms[i] = fmt.Sprintf("%q", fmt.Sprintf("S%d", i))
		}
		return `{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":[` + strings.Join(syms, ",") + `]}}]}`
	}
	for _, c := range []struct {
		name      string
		prev, cur string
		events    int
		bound     time.Duration
		// most is the longest Check may take.
		most time.Duration
		// tooLarge: the pair is not read (its resolution would
		// outlast the bound).
		tooLarge bool
	}{
		{"huge N", shipment, strings.Replace(shipment, `"symbols":["DHL","UPS","FEDEX"]`, `"symbols":["DHL","UPS"]`, 1), evidence.MaxEvents, 400 * time.Millisecond, 2 * time.Second, false},
		{"enum of 30000 symbols loses one", big(30000), big(29999), 100, 500 * time.Millisecond, 600 * time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev, next := mustParse(t, compat.Avro, c.prev), mustParse(t, compat.Avro, c.cur)
			ctx, cancel := context.WithTimeout(context.Background(), c.bound)
			defer cancel()
			start := time.Now()
			rep, err := evidence.Check(ctx, compat.Full, next, []compat.Previous{{Version: 1, Schema: prev}}, evidence.Options{Events: c.events})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if took > c.most {
				t.Errorf("took %v under a bound of %v", took, c.bound)
			}
			if len(rep.Pairs) != 2 {
				t.Fatalf("pairs %+v", rep.Pairs)
			}
			for _, p := range rep.Pairs {
				r := p.Result
				if r.Events == 0 && r.NotRead == "" {
					t.Errorf("%s: 0 events without NotRead: %+v", p.Direction, r)
				}
				if c.events == evidence.MaxEvents && r.Events == 0 {
					t.Errorf("%s got no event: the time was not shared", p.Direction)
				}
				if c.tooLarge {
					// Not started: hamba's resolution of 30000
					// symbols cannot be stopped and would outlast
					// the bound.
					if r.Events != 0 || !strings.Contains(r.NotRead, "enum E has 30000 symbols: too large to resolve within the evidence time bound") {
						t.Errorf("%s: want not read as too large, got %+v", p.Direction, r)
					}
					continue
				}
				if r.Events < c.events && !r.Partial {
					t.Errorf("%s: %d of %d events, not marked partial", p.Direction, r.Events, c.events)
				}
			}
		})
	}
}

// TestTargetedEnumSymbol: the writer's enum symbols the reader lacks are
// generated first (a quarter of the events), so that removing one
// symbol of 20000 is shown with the default N.
func TestTargetedEnumSymbol(t *testing.T) {
	big := func(n int) string {
		syms := make([]string, n)
		for i := range syms {
			syms[i] = fmt.Sprintf("%q", fmt.Sprintf("S%d", i))
		}
		return `{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":[` + strings.Join(syms, ",") + `]}}]}`
	}
	res := read(t, compat.Avro, big(19999), big(20000), evidence.Options{})
	if res.Refused == 0 || len(res.Outcomes) == 0 || string(res.Outcomes[0].Event) != `{"e":"S19999"}` || res.Outcomes[0].Path != ".e" {
		t.Fatalf("the removed symbol was not reached: %+v", res)
	}
}

// TestTargetedUnionBranch: a named branch of the writer's union that no
// reader type is named as is generated first, so that a union of 300
// records minus one is shown with the default N.
func TestTargetedUnionBranch(t *testing.T) {
	union := func(n int) string {
		bs := make([]string, n)
		for i := range bs {
			bs[i] = fmt.Sprintf(`{"type":"record","name":"U%d","fields":[{"name":"f","type":"int"}]}`, i)
		}
		return `{"type":"record","name":"W","fields":[{"name":"u","type":[` + strings.Join(bs, ",") + `]}]}`
	}
	res := read(t, compat.Avro, union(299), union(300), evidence.Options{})
	if res.Refused == 0 || len(res.Outcomes) == 0 || string(res.Outcomes[0].Event) != `{"u":{"U299":{"f":0}}}` {
		t.Fatalf("the removed branch was not reached: %+v", res)
	}
}
