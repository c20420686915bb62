package api_test

import (
	"encoding/json"
	"strings"
	"testing"
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
