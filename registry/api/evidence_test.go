package api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/api"
)

// TestCompatibilityEvidence: verbose=true&evidence=true answers, beside
// Confluent's fields, the evidence of the pair compared: a breaking
// finding's counterexample, and for a compatible schema how many events
// read back equal.
func TestCompatibilityEvidence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	v1 := `{"type":"record","name":"Shipment","fields":[{"name":"id","type":"string"},{"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["DHL","UPS","FEDEX"]}}]}`
	e.mustDo("POST", "/subjects/s/versions", schemaBody(v1))
	v2 := strings.Replace(v1, `,"FEDEX"`, "", 1)
	status, _, body := e.do("POST", "/compatibility/subjects/s/versions/latest?verbose=true&evidence=true", schemaBody(v2))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var got struct {
		IsCompatible bool `json:"is_compatible"`
		Evidence     struct {
			Pairs []struct {
				Direction string
				Version   int
				Result    struct{ Events, Equal, Refused int }
			}
			Counterexamples []struct {
				RuleID  string `json:"ruleId"`
				Outcome struct {
					Class string
					Path  string
					Event json.RawMessage
				}
			}
			NotRead string
		}
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	ev := got.Evidence
	if got.IsCompatible || ev.NotRead != "" || len(ev.Pairs) != 1 || ev.Pairs[0].Direction != "BACKWARD" || ev.Pairs[0].Version != 1 ||
		ev.Pairs[0].Result.Events != 100 || ev.Pairs[0].Result.Refused == 0 {
		t.Fatalf("evidence %+v", ev)
	}
	if len(ev.Counterexamples) != 1 || ev.Counterexamples[0].RuleID != "AVRO_MISSING_ENUM_SYMBOLS" ||
		ev.Counterexamples[0].Outcome.Class != "refused" || string(ev.Counterexamples[0].Outcome.Event) != `{"carrier":"FEDEX","id":""}` {
		t.Fatalf("counterexamples %+v", ev.Counterexamples)
	}
	// Compatible: every event read back equal; without evidence=true no
	// evidence field.
	status, _, body = e.do("POST", "/compatibility/subjects/s/versions/latest?verbose=true&evidence=true", schemaBody(v1))
	if status != 200 || !strings.Contains(body, `"is_compatible":true`) || !strings.Contains(body, `"events":100,"equal":100`) {
		t.Fatalf("compatible: %d %s", status, body)
	}
	if _, _, body = e.do("POST", "/compatibility/subjects/s/versions/latest?verbose=true", schemaBody(v1)); strings.Contains(body, "evidence") {
		t.Fatalf("evidence without evidence=true: %s", body)
	}
}

type transitiveEvidence struct {
	IsCompatible bool `json:"is_compatible"`
	Evidence     struct {
		Pairs []struct {
			Direction string
			Version   int
			Result    struct {
				Events, Equal, Refused int
				Partial                bool
			}
		}
		Counterexamples []struct {
			RuleID  string `json:"ruleId"`
			Version int
			Outcome struct{ Path string }
		}
		NotCompared []int
		Budget      string
	}
}

// transitiveSubject registers three versions of a subject at
// BACKWARD_TRANSITIVE, each adding a carrier, and returns a candidate
// that lacks FEDEX, which all three have.
func transitiveSubject(t *testing.T, e *env) string {
	t.Helper()
	e.mustDo("PUT", "/config/s", `{"compatibility":"BACKWARD_TRANSITIVE"}`)
	base := `{"type":"record","name":"Shipment","fields":[{"name":"id","type":"string"},{"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":[SYMBOLS]}}]}`
	for _, syms := range []string{`"DHL","FEDEX"`, `"DHL","FEDEX","UPS"`, `"DHL","FEDEX","UPS","DPD"`} {
		e.mustDo("POST", "/subjects/s/versions", schemaBody(strings.Replace(base, "SYMBOLS", syms, 1)))
	}
	return strings.Replace(base, "SYMBOLS", `"DHL","UPS","DPD"`, 1)
}

// TestCompatibilityEvidenceTransitive: under a transitive level the
// evidence reads the candidate against every version the rules compare
// with, newest first, each breaking finding with the counterexample of
// its own version.
func TestCompatibilityEvidenceTransitive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cand := transitiveSubject(t, e)
	status, _, body := e.do("POST", "/compatibility/subjects/s/versions?verbose=true&evidence=true", schemaBody(cand))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var got transitiveEvidence
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	ev := got.Evidence
	if got.IsCompatible || len(ev.Pairs) != 3 || len(ev.NotCompared) != 0 || ev.Budget != "" {
		t.Fatalf("evidence %s", body)
	}
	for i, want := range []int{3, 2, 1} {
		p := ev.Pairs[i]
		if p.Direction != "BACKWARD" || p.Version != want || p.Result.Events != 100 || p.Result.Refused == 0 || p.Result.Partial {
			t.Errorf("pair %d: %+v, want BACKWARD against v%d with refusals", i, p, want)
		}
	}
	versions := map[int]bool{}
	for _, c := range ev.Counterexamples {
		if c.RuleID != "AVRO_MISSING_ENUM_SYMBOLS" || c.Outcome.Path != ".carrier" {
			t.Errorf("counterexample %+v", c)
		}
		versions[c.Version] = true
	}
	if len(versions) != 3 {
		t.Errorf("counterexamples for versions %v, want 1, 2 and 3: %s", versions, body)
	}
	// A version given: that one alone, even under a transitive level.
	_, _, body = e.do("POST", "/compatibility/subjects/s/versions/1?verbose=true&evidence=true", schemaBody(cand))
	got = transitiveEvidence{}
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.Evidence.Pairs) != 1 || got.Evidence.Pairs[0].Version != 1 {
		t.Fatalf("version 1: %v %s", err, body)
	}
}

// TestCompatibilityEvidenceBudget: when the time budget runs out, the
// versions left unread are named and the verdict stays the rules'.
func TestCompatibilityEvidenceBudget(t *testing.T) {
	defer api.SetEvidenceTimeout(time.Nanosecond)()
	e := newEnv(t)
	cand := transitiveSubject(t, e)
	status, _, body := e.do("POST", "/compatibility/subjects/s/versions?verbose=true&evidence=true", schemaBody(cand))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var got transitiveEvidence
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	ev := got.Evidence
	if got.IsCompatible || len(ev.Pairs) != 0 || !slices.Equal(ev.NotCompared, []int{3, 2, 1}) ||
		!strings.Contains(ev.Budget, "the time budget of 1ns ran out before every version was read: versions [3 2 1] were not compared") {
		t.Fatalf("evidence %s", body)
	}
}

// TestCompatibilityEvidenceBusy: when every evidence slot is taken, a
// call waits briefly, then answers the rules' verdict (200 as usual)
// with its evidence not computed because the server is busy; once a
// slot is free the evidence is computed again.
func TestCompatibilityEvidenceBusy(t *testing.T) {
	e := newEnv(t)
	v1 := `{"type":"record","name":"Shipment","fields":[{"name":"id","type":"string"},{"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["DHL","UPS","FEDEX"]}}]}`
	e.mustDo("POST", "/subjects/s/versions", schemaBody(v1))
	v2 := strings.Replace(v1, `,"FEDEX"`, "", 1)
	type answer struct {
		IsCompatible bool `json:"is_compatible"`
		Messages     []string
		Evidence     struct {
			Pairs   []json.RawMessage
			NotRead string `json:"notRead"`
		}
	}
	call := func() (answer, time.Duration) {
		t.Helper()
		start := time.Now()
		status, _, body := e.do("POST", "/compatibility/subjects/s/versions/latest?verbose=true&evidence=true", schemaBody(v2))
		took := time.Since(start)
		if status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
		var got answer
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		return got, took
	}
	release := api.HoldEvidenceSlots()
	got, took := call()
	release()
	if got.IsCompatible || len(got.Messages) == 0 || got.Evidence.NotRead != "evidence: the server is busy" || len(got.Evidence.Pairs) != 0 {
		t.Fatalf("busy: %+v", got)
	}
	if took > time.Second {
		t.Errorf("busy answer took %v", took)
	}
	got, _ = call()
	if got.IsCompatible || got.Evidence.NotRead != "" || len(got.Evidence.Pairs) != 1 {
		t.Fatalf("after release: %+v", got)
	}
}

// TestCompatibilityEvidenceDocumented: the evidence parameter and the
// answer's evidence field are in openapi.json, and every shape of the
// answer matches it (a breaking pair with outcomes, an evidence rule's
// finding, a compatible pair, a schema with references).
func TestCompatibilityEvidenceDocumented(t *testing.T) {
	e := newGovEnv(t)
	const cmp = "/compatibility/subjects/{subject}/versions"
	for _, path := range []string{cmp, cmp + "/{version}"} {
		found := false
		for _, p := range e.oas.operation(t, "POST", path)["parameters"].([]any) {
			if m, ok := p.(map[string]any); ok && m["name"] == "evidence" && m["in"] == "query" {
				found = true
			}
		}
		if !found {
			t.Errorf("POST %s: no evidence parameter in openapi.json", path)
		}
	}
	v1 := `{"type":"record","name":"Shipment","fields":[{"name":"id","type":"string"},{"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["DHL","UPS","FEDEX"]}}]}`
	e.call(200, "POST", "/subjects/{subject}/versions", "/subjects/s/versions", schemaBody(v1))
	r := e.call(200, "POST", cmp, "/compatibility/subjects/s/versions?verbose=true&evidence=true", schemaBody(strings.Replace(v1, `,"FEDEX"`, "", 1)))
	if !strings.Contains(r.body, `"counterexamples":[`) || !strings.Contains(r.body, `"outcomes":[`) {
		t.Errorf("breaking: %s", r.body)
	}
	e.call(200, "POST", cmp+"/{version}", "/compatibility/subjects/s/versions/1?verbose=true&evidence=true", schemaBody(v1))
	// An evidence rule's finding: a Protobuf repeated string made
	// singular, which every rule accepts.
	p1 := `syntax = "proto3"; message Parcel { repeated string labels = 1; }`
	e.call(200, "POST", "/subjects/{subject}/versions", "/subjects/p/versions", schemaBody(p1, `"schemaType":"PROTOBUF"`))
	r = e.call(200, "POST", cmp, "/compatibility/subjects/p/versions?verbose=true&evidence=true",
		schemaBody(strings.Replace(p1, "repeated ", "", 1), `"schemaType":"PROTOBUF"`))
	if !strings.Contains(r.body, `"findings":[{"ruleId":"PROTO_REPEATED_TO_SINGULAR"`) {
		t.Errorf("evidence rule: %s", r.body)
	}
	// A schema with references is read with them.
	e.call(200, "POST", "/subjects/{subject}/versions", "/subjects/box/versions",
		schemaBody(`{"type":"record","name":"Box","fields":[{"name":"s","type":"Shipment"}]}`, `"references":[{"name":"Shipment","subject":"s","version":1}]`))
	r = e.call(200, "POST", cmp, "/compatibility/subjects/box/versions?verbose=true&evidence=true",
		schemaBody(`{"type":"record","name":"Box","fields":[{"name":"s","type":"Shipment"}]}`, `"references":[{"name":"Shipment","subject":"s","version":1}]`))
	if !strings.Contains(r.body, `"pairs":[{"direction":"BACKWARD","version":1,"result":{"events":100,"equal":100,`) || strings.Contains(r.body, "notRead") {
		t.Errorf("references: %s", r.body)
	}
}
