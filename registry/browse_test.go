package registry_test

import (
	"context"
	"testing"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/registry"
)

// TestCompareAcrossSchemaTypes: comparing an Avro version with a JSON
// Schema version is judged as registration judges it: SCHEMA_TYPE_CHANGED
// at every level but NONE, and a major change (it was "compatible, 0
// changes" in the UI).
func TestCompareAcrossSchemaTypes(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, avro.Format{}, jsonschema.Format{})
	if _, err := svc.SetConfig(ctx, "mixed", levelUpdate(compat.None)); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, "mixed", registry.RegisterRequest{Schema: `{"type":"record","name":"R","fields":[{"name":"id","type":"long"}]}`})
	mustRegister(t, svc, "mixed", registry.RegisterRequest{Type: compat.JSON, Schema: `{"type":"object","properties":{"id":{"type":"integer"}}}`})
	for _, tc := range []struct {
		level    compat.Level
		findings int
	}{{compat.Full, 1}, {compat.BackwardTransitive, 1}, {compat.None, 0}} {
		c, err := svc.Governance().Compare(ctx, "mixed", 1, 2, tc.level)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Findings) != tc.findings || (tc.findings > 0 && c.Findings[0].RuleID != gate.RuleSchemaTypeChanged) {
			t.Errorf("%s: findings %+v, want %d SCHEMA_TYPE_CHANGED", tc.level, c.Findings, tc.findings)
		}
		if c.Bump != "major" {
			t.Errorf("%s: bump %q, want major", tc.level, c.Bump)
		}
	}
}
