package registry_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/registry"
)

// plainAvro is Avro without its compat.Summary: every transitive check
// compares with each earlier version in full, as before the summary.
type plainAvro struct{ f avro.Format }

func (p plainAvro) Type() compat.SchemaType { return p.f.Type() }
func (p plainAvro) Parse(text string, deps []compat.Dependency) (compat.Schema, error) {
	return p.f.Parse(text, deps)
}
func (p plainAvro) CheckRead(r, w compat.Schema) []compat.Violation { return p.f.CheckRead(r, w) }

// TestTransitiveSummaryMatchesFullCheck: a registry comparing through the
// Avro summary and one comparing each version in full answer every
// compatibility check (verbose messages included) and every registration
// the same, at every level, on a subject whose versions include a
// recursive record and a string (compared in full), a JSON Schema version
// (another type) and soft-deleted versions, and whose fields come, go,
// change type and default.
func TestTransitiveSummaryMatchesFullCheck(t *testing.T) {
	ctx := context.Background()
	r := func(fields ...string) registry.RegisterRequest {
		return registry.RegisterRequest{Schema: `{"type":"record","name":"R","namespace":"ex","fields":[` + strings.Join(fields, ",") + `]}`}
	}
	history := []registry.RegisterRequest{
		r(`{"name":"id","type":"long"}`),
		r(`{"name":"id","type":"long"}`, `{"name":"a","type":["null","string"],"default":null}`),
		r(`{"name":"id","type":"long"}`, `{"name":"a","type":"string"}`),
		r(`{"name":"id","type":"int"}`, `{"name":"next","type":["null","R"],"default":null}`),
		{Schema: `"string"`},
		{Schema: `{"type":"object","properties":{"id":{"type":"integer"}}}`, Type: compat.JSON},
		r(`{"name":"id","type":"long"}`, `{"name":"b","type":"int","default":0}`),
		r(`{"name":"id","type":"long"}`, `{"name":"b","type":"long","default":0}`, `{"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}}`),
		r(`{"name":"id","type":"long"}`, `{"name":"c","type":{"type":"enum","name":"E","symbols":["X"]}}`),
	}
	candidates := []registry.RegisterRequest{
		r(`{"name":"id","type":"long"}`, `{"name":"b","type":"long","default":0}`),
		r(`{"name":"id","type":"long"}`, `{"name":"a","type":["null","string"],"default":null}`, `{"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"X"}}`),
		r(`{"name":"id","type":"double"}`, `{"name":"z","type":"string"}`),
		r(`{"name":"id","type":"long"}`),
		{Schema: `"string"`},
		r(`{"name":"id","type":"long"}`, `{"name":"c","type":{"type":"enum","name":"E","symbols":["X"],"default":"X"}}`, `{"name":"d","type":"string","default":""}`),
	}
	services := map[string]*registry.Service{
		"summary": registry.NewService(openStore(t), []compat.Format{avro.Format{}, jsonschema.Format{}}),
		"full":    registry.NewService(openStore(t), []compat.Format{plainAvro{}, jsonschema.Format{}}),
	}
	none := string(compat.None)
	for _, svc := range services {
		if _, err := svc.SetConfig(ctx, "s", registry.ConfigUpdate{Compatibility: &none}); err != nil {
			t.Fatal(err)
		}
		for _, req := range history {
			mustRegister(t, svc, "s", req)
		}
	}
	compared, incompatible, registered := 0, 0, 0
	phase := func(name string) {
		for _, level := range compat.Levels {
			lv := string(level)
			for _, svc := range services {
				if _, err := svc.SetConfig(ctx, "s", registry.ConfigUpdate{Compatibility: &lv}); err != nil {
					t.Fatal(err)
				}
			}
			for i, cand := range candidates {
				// A doc (a property for the string) the level and phase
				// name makes each candidate a new schema: registered, it
				// is a new version, judged.
				tag := fmt.Sprintf("%q:%q,", map[bool]string{true: "doc", false: "note"}[cand.Schema != `"string"`], name+" "+lv)
				if cand.Schema == `"string"` {
					cand.Schema = `{` + tag + `"type":"string"}`
				} else {
					cand.Schema = strings.Replace(cand.Schema, `{`, `{`+tag, 1)
				}
				got := map[string]string{}
				for which, svc := range services {
					res, err := svc.CheckCompatibility(ctx, "s", 0, cand)
					var ss registry.SubjectSchema
					var rerr error
					if level != compat.None { // NONE would register them all
						ss, rerr = svc.Register(ctx, "s", cand)
					}
					got[which] = fmt.Sprintf("check: %v %v %v %q\nregister: version %d id %d, %v",
						res.Compatible, res.Findings, err, res.Messages, ss.Version, ss.Schema.ID, rerr)
					if which == "full" {
						if rerr == nil && level.Transitive() {
							registered++
						}
						compared++
						if !res.Compatible {
							incompatible++
						}
					}
				}
				if !reflect.DeepEqual(got["summary"], got["full"]) {
					t.Fatalf("%s, %s, candidate %d:\nthrough the summary\n%s\nin full\n%s", name, level, i, got["summary"], got["full"])
				}
			}
		}
	}
	phase("all versions live")
	for _, svc := range services {
		for _, v := range []int{5, 6, 3} { // the string, the JSON Schema, a required field
			if _, err := svc.DeleteVersion(ctx, "s", v, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	phase("versions 3, 5 and 6 soft-deleted")
	for _, svc := range services {
		if _, err := svc.DeleteVersion(ctx, "s", 4, false); err != nil {
			t.Fatal(err)
		}
	}
	phase("versions 3 to 6 soft-deleted")
	t.Logf("%d checks, %d incompatible, %d new versions registered at a transitive level", compared, incompatible, registered)
	if incompatible == 0 || incompatible == compared || registered == 0 {
		t.Fatalf("%d of %d checks incompatible: the test compares nothing interesting", incompatible, compared)
	}
}
