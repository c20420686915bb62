package avro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// summaryAgrees checks, for every level and every version of chain as the
// new schema, that a Summary of the versions before it gives exactly the
// Result of compat.CheckContext comparing with each (rule IDs, paths,
// messages, directions, versions, order), and that it compared some
// findings at all (want > 0: the chain is not trivially compatible).
// Versions the summary cannot represent are listed in unsummarized (by
// index) and must be refused by Add.
func summaryAgrees(t *testing.T, chain []string, unsummarized map[int]bool) (findings int) {
	t.Helper()
	f := avro.Format{}
	parsed := make([]compat.Schema, len(chain))
	for i, text := range chain {
		p, err := f.Parse(text, nil)
		if err != nil {
			t.Fatalf("version %d: %v\n%s", i+1, err, text)
		}
		parsed[i] = p
	}
	ctx := context.Background()
	for _, level := range compat.Levels {
		sum := f.NewSummary()
		for n := 1; n < len(chain); n++ {
			// Versions 1..n are earlier; version n+1 is new.
			if ok := sum.Add(int64(n), parsed[n-1]); ok == unsummarized[n-1] {
				t.Fatalf("Add(version %d) = %t, want %t", n, ok, !unsummarized[n-1])
			}
			var prev []compat.Previous
			var keyed []compat.Keyed
			for v := 1; v <= n; v++ {
				if unsummarized[v-1] {
					continue
				}
				prev = append(prev, compat.Previous{Version: v, Schema: parsed[v-1]})
				keyed = append(keyed, compat.Keyed{Version: v, Key: int64(v)})
			}
			want, err := compat.CheckContext(ctx, f, level, parsed[n], prev)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := sum.Check(ctx, level, parsed[n], keyed)
			if !strings.HasPrefix(parsed[n].Canonical(), `{"type":"record"`) {
				// Only a record is compared through the summary.
				if ok || err != nil {
					t.Fatalf("%s, new version %d is no record: Check ok=%t err=%v, want false", level, n+1, ok, err)
				}
				continue
			}
			if err != nil || !ok {
				t.Fatalf("%s, new version %d: Check ok=%t err=%v", level, n+1, ok, err)
			}
			if !reflect.DeepEqual(normal(got), normal(want)) {
				t.Fatalf("%s, new version %d against %d earlier: summary\n%s\nfull pairwise\n%s",
					level, n+1, len(keyed), show(got), show(want))
			}
			findings += len(want.Findings)
			// Every second earlier version only (soft-deleted ones, a
			// compatibility group), newest last.
			var half []compat.Previous
			var halfKeyed []compat.Keyed
			for i := len(prev) % 2; i < len(prev); i += 2 {
				half = append(half, prev[i])
				halfKeyed = append(halfKeyed, keyed[i])
			}
			want, _ = compat.CheckContext(ctx, f, level, parsed[n], half)
			got, _, _ = sum.Check(ctx, level, parsed[n], halfKeyed)
			if !reflect.DeepEqual(normal(got), normal(want)) {
				t.Fatalf("%s, new version %d against every second earlier one: summary\n%s\nfull pairwise\n%s",
					level, n+1, show(got), show(want))
			}
		}
	}
	return findings
}

// normal makes an empty and a nil Findings compare equal.
func normal(r compat.Result) compat.Result {
	if len(r.Findings) == 0 {
		r.Findings = nil
	}
	return r
}

func show(r compat.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  v%d %s %s %s: %s\n", f.Version, f.Direction, f.RuleID, f.Path, f.Message)
	}
	if b.Len() == 0 {
		return "  (compatible)\n"
	}
	return b.String()
}

// TestSummaryMatchesPairwise: tricky chains, each checked at every level
// against the full pairwise comparison.
func TestSummaryMatchesPairwise(t *testing.T) {
	r := func(fields ...string) string { return rec(strings.Join(fields, ",")) }
	tests := []struct {
		name         string
		chain        []string
		unsummarized map[int]bool
	}{
		{name: "growing record", chain: func() []string {
			var c []string
			fields := []string{`{"name":"id","type":"long"}`}
			for i := 2; i <= 30; i++ {
				c = append(c, r(fields...))
				fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":["null","string"],"default":null}`, i))
			}
			return c
		}()},
		{name: "removed then re-added field", chain: []string{
			r(`{"name":"a","type":"int"}`, `{"name":"b","type":"string"}`),
			r(`{"name":"a","type":"int"}`),
			r(`{"name":"a","type":"int"}`, `{"name":"b","type":"string","default":"x"}`),
			r(`{"name":"a","type":"int"}`),
			r(`{"name":"a","type":"int"}`, `{"name":"b","type":"long"}`),
			r(`{"name":"b","type":"string"}`, `{"name":"a","type":"int"}`),
		}},
		{name: "type promotions back and forth", chain: []string{
			r(`{"name":"n","type":"int"}`),
			r(`{"name":"n","type":"long"}`),
			r(`{"name":"n","type":"float"}`),
			r(`{"name":"n","type":"double"}`),
			r(`{"name":"n","type":"int"}`),
			r(`{"name":"n","type":"string"}`, `{"name":"s","type":"bytes"}`),
			r(`{"name":"n","type":"bytes"}`, `{"name":"s","type":"string"}`),
		}},
		{name: "defaults changing", chain: []string{
			r(`{"name":"a","type":"int","default":1}`, `{"name":"b","type":"string"}`),
			r(`{"name":"a","type":"int"}`, `{"name":"b","type":"string","default":""}`),
			r(`{"name":"a","type":"int","default":2}`, `{"name":"b","type":"string","default":"y"}`),
			r(`{"name":"b","type":"string"}`),
			r(`{"name":"a","type":"int"}`),
			r(`{"name":"a","type":"int","default":3}`, `{"name":"c","type":"int"}`),
		}},
		{name: "unions", chain: []string{
			r(`{"name":"u","type":["null","string"],"default":null}`),
			r(`{"name":"u","type":["null","string","int"],"default":null}`),
			r(`{"name":"u","type":"string"}`),
			r(`{"name":"u","type":["int","string"]}`),
			r(`{"name":"u","type":["null","long"],"default":null}`),
			r(`{"name":"u","type":["null",{"type":"record","name":"In","fields":[{"name":"x","type":"int"}]}],"default":null}`),
			r(`{"name":"u","type":["null",{"type":"record","name":"In","fields":[{"name":"x","type":"long"},{"name":"y","type":"int"}]}],"default":null}`),
		}},
		{name: "aliases and renames", chain: []string{
			r(`{"name":"old","type":"int"}`, `{"name":"other","type":"string"}`),
			r(`{"name":"new","type":"int","aliases":["old"]}`, `{"name":"other","type":"string"}`),
			r(`{"name":"new","type":"int"}`, `{"name":"other","type":"string"}`),
			r(`{"name":"newer","type":"long","aliases":["other","new","old"]}`),
			r(`{"name":"other","type":"long","aliases":["newer"]}`, `{"name":"new","type":"int","default":0}`),
			r(`{"name":"x","type":"int","aliases":["missing","new"]}`),
		}},
		{name: "record renamed", chain: []string{
			`{"type":"record","name":"A","namespace":"ex","fields":[{"name":"a","type":"int"}]}`,
			`{"type":"record","name":"B","namespace":"ex","aliases":["A"],"fields":[{"name":"a","type":"int"}]}`,
			`{"type":"record","name":"B","namespace":"ex","fields":[{"name":"a","type":"int"}]}`,
			`{"type":"record","name":"B","namespace":"other","fields":[{"name":"a","type":"int"}]}`,
			`{"type":"record","name":"A","namespace":"ex","aliases":["other.B"],"fields":[{"name":"a","type":"int"}]}`,
		}},
		{name: "nested named types used by name", chain: []string{
			r(`{"name":"home","type":{"type":"record","name":"Addr","fields":[{"name":"city","type":"string"}]}}`, `{"name":"work","type":"Addr"}`),
			r(`{"name":"home","type":{"type":"record","name":"Addr","fields":[{"name":"city","type":"string"},{"name":"zip","type":"string"}]}}`, `{"name":"work","type":"Addr"}`),
			r(`{"name":"home","type":{"type":"record","name":"Addr","fields":[{"name":"city","type":"string"},{"name":"zip","type":"string","default":""}]}}`, `{"name":"work","type":"Addr"}`),
			r(`{"name":"work","type":{"type":"record","name":"Addr","fields":[{"name":"city","type":"bytes"}]}}`, `{"name":"home","type":"Addr"}`),
			r(`{"name":"work","type":{"type":"array","items":{"type":"record","name":"Addr","fields":[{"name":"city","type":"bytes"}]}}}`),
			r(`{"name":"work","type":{"type":"map","values":{"type":"record","name":"Addr","fields":[{"name":"city","type":"int"}]}}}`),
		}},
		{name: "enums, fixed and logical types", chain: []string{
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}`, `{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}}`),
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}`, `{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}`),
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"],"default":"A"}}`, `{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":3}}`),
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}`, `{"name":"d","type":"bytes"}`, `{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}}`),
			r(`{"name":"e","type":{"type":"fixed","name":"E","size":4}}`, `{"name":"t","type":{"type":"long","logicalType":"timestamp-micros"}}`),
			r(`{"name":"e","type":{"type":"fixed","name":"E","size":8}}`, `{"name":"t","type":"long"}`),
			r(`{"name":"e","type":{"type":"fixed","name":"E","size":8}}`),
		}},
		{name: "named types differing only in aliases or an enum default", chain: []string{
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A"],"default":"A"}}`, `{"name":"n","type":{"type":"record","name":"New","aliases":["Old"],"fields":[{"name":"x","type":"int"}]}}`),
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}`, `{"name":"n","type":{"type":"record","name":"New","fields":[{"name":"x","type":"int"}]}}`),
			r(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}`, `{"name":"n","type":{"type":"record","name":"Old","fields":[{"name":"x","type":"int"}]}}`),
		}},
		{name: "recursive and non-record versions are not summarized", chain: []string{
			r(`{"name":"a","type":"int"}`),
			r(`{"name":"a","type":"int"}`, `{"name":"next","type":["null","R"],"default":null}`),
			`"string"`,
			r(`{"name":"a","type":"long"}`),
			r(`{"name":"a","type":"long"}`, `{"name":"l","type":{"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]}}`),
			r(`{"name":"a","type":"int"}`, `{"name":"b","type":"int","default":0}`),
		}, unsummarized: map[int]bool{1: true, 2: true, 4: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := summaryAgrees(t, tt.chain, tt.unsummarized)
			if tt.name != "growing record" && n == 0 {
				t.Fatal("no level found anything: the chain tests nothing")
			}
		})
	}
}

// TestSummaryRandomChains compares the summary with the full pairwise
// check on random chains of records whose fields come and go, change
// type, default and aliases, and sometimes stay for many versions.
func TestSummaryRandomChains(t *testing.T) {
	types := []struct{ typ, def string }{
		{`"int"`, `0`}, {`"long"`, `0`}, {`"float"`, `0.5`}, {`"double"`, `1.5`},
		{`"string"`, `""`}, {`"bytes"`, `""`}, {`"boolean"`, `false`},
		{`["null","string"]`, `null`}, {`["null","int"]`, `null`}, {`["string","int"]`, `"s"`},
		{`["null","int","string"]`, `null`}, {`["int","long"]`, `1`},
		{`{"type":"enum","name":"E1","symbols":["A","B"]}`, `"A"`},
		{`{"type":"enum","name":"E1","symbols":["A","B","C"]}`, `"B"`},
		{`{"type":"enum","name":"E1","symbols":["A","B","C"],"default":"C"}`, `"C"`},
		{`{"type":"record","name":"N","fields":[{"name":"x","type":"int"}]}`, `{"x":1}`},
		{`{"type":"record","name":"N","fields":[{"name":"x","type":"long"},{"name":"y","type":"string","default":""}]}`, `{"x":1}`},
		{`{"type":"record","name":"M","aliases":["N"],"fields":[{"name":"z","type":"int","aliases":["x"]}]}`, `{"z":1}`},
		{`{"type":"array","items":"int"}`, `[]`}, {`{"type":"array","items":"long"}`, `[]`},
		{`{"type":"map","values":["null","string"]}`, `{}`},
		{`{"type":"fixed","name":"F","size":4}`, `"abcd"`},
		{`{"type":"long","logicalType":"timestamp-millis"}`, `0`},
		{`{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}`, `""`},
		{`{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}`, `""`},
	}
	names := []string{"a", "b", "c", "d", "e", "f"}
	rnd := rand.New(rand.NewPCG(18, 1000))
	total := 0
	for chainNo := range 120 {
		type fld struct {
			name, typ, def string
			aliases        []string
		}
		var fields []fld
		var chain []string
		for range 2 + rnd.IntN(10) {
			// Mutate: usually a little (the chains of real subjects),
			// sometimes a lot.
			for range rnd.IntN(3) {
				switch op := rnd.IntN(6); {
				case op <= 1 && len(fields) < len(names): // add a field
					nm := names[rnd.IntN(len(names))]
					dup := false
					for _, f := range fields {
						dup = dup || f.name == nm
					}
					if dup {
						continue
					}
					ty := types[rnd.IntN(len(types))]
					f := fld{name: nm, typ: ty.typ}
					if rnd.IntN(2) == 0 {
						f.def = ty.def
					}
					if rnd.IntN(5) == 0 {
						f.aliases = []string{names[rnd.IntN(len(names))]}
					}
					fields = append(fields, f)
				case op == 2 && len(fields) > 0: // remove one
					i := rnd.IntN(len(fields))
					fields = append(fields[:i:i], fields[i+1:]...)
				case op == 3 && len(fields) > 0: // change its type
					i := rnd.IntN(len(fields))
					ty := types[rnd.IntN(len(types))]
					fields[i].typ = ty.typ
					if fields[i].def != "" {
						fields[i].def = ty.def
					}
				case op == 4 && len(fields) > 0: // toggle its default
					i := rnd.IntN(len(fields))
					if fields[i].def != "" {
						fields[i].def = ""
					} else {
						for _, ty := range types {
							if ty.typ == fields[i].typ {
								fields[i].def = ty.def
							}
						}
					}
				case op == 5 && len(fields) > 1: // swap two
					i, j := rnd.IntN(len(fields)), rnd.IntN(len(fields))
					fields[i], fields[j] = fields[j], fields[i]
				}
			}
			// Named types may be defined once per schema: keep the
			// first use of each name, drop the fields that redefine it.
			defined := map[string]bool{}
			var parts []string
			for _, f := range fields {
				var probe struct {
					Name string `json:"name"`
				}
				if strings.HasPrefix(f.typ, "{") && json.Unmarshal([]byte(f.typ), &probe) == nil && probe.Name != "" {
					key := map[string]string{"N": "N", "M": "N"}[probe.Name]
					if key == "" {
						key = probe.Name
					}
					if defined[key] || (key == "N" && (defined["N"] || defined["M"])) {
						continue
					}
					defined[key] = true
				}
				s := fmt.Sprintf(`{"name":%q,"type":%s`, f.name, f.typ)
				if f.def != "" {
					s += `,"default":` + f.def
				}
				if len(f.aliases) > 0 && f.aliases[0] != f.name {
					s += fmt.Sprintf(`,"aliases":[%q]`, f.aliases[0])
				}
				parts = append(parts, s+"}")
			}
			chain = append(chain, rec(strings.Join(parts, ",")))
		}
		if len(chain) < 2 {
			continue
		}
		t.Run(fmt.Sprint(chainNo), func(t *testing.T) { total += summaryAgrees(t, chain, nil) })
	}
	if total == 0 {
		t.Fatal("the random chains found no incompatibility at all: they test nothing")
	}
	t.Logf("%d findings compared", total)
}

// TestSummaryIsCompact: a record growing by one field per version holds
// each field once (a run over the versions that have it), not once per
// version.
func TestSummaryIsCompact(t *testing.T) {
	f := avro.Format{}
	sum := f.NewSummary()
	fields := []string{`{"name":"id","type":"long"}`}
	var last compat.Schema
	for i := 2; i <= 400; i++ {
		p, err := f.Parse(rec(strings.Join(fields, ",")), nil)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(int64(i), p)
		last = p
		fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":["null","string"],"default":null}`, i))
	}
	// 399 versions of up to 399 fields: 80,000 field occurrences; each
	// distinct field counted once (256 bytes) plus a pointer per
	// occurrence (8 bytes), about 0.8 MB, where the parsed schemas take
	// tens of MB.
	if got := sum.Bytes(); got > 1_000_000 {
		t.Fatalf("Bytes() = %d, want at most 1,000,000", got)
	}
	if got := len(last.Canonical()) * 40 * 399 / 2; got < 10_000_000 {
		t.Fatalf("the parsed versions would take about %d bytes: the comparison means nothing", got)
	}
}
