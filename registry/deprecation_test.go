package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

// TestExpiredUnremovableReregistration: at a level that reads forward, a
// deprecated field required without a default can never be removed, so
// once it has expired (and nobody reads it) a serializer re-registering
// the current version at start-up, and a new version that keeps it, are
// allowed with DEPRECATION_EXPIRED_UNREMOVABLE instead of refused (one
// path is always open), through the dry run and real registration alike.
// At BACKWARD the same keep is refused: removing is the open path.
func TestExpiredUnremovableReregistration(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  string // the deprecation finding of keeping it
		allow bool
	}{
		{"FULL", "warning DEPRECATION_EXPIRED_UNREMOVABLE", true},
		{"FULL_TRANSITIVE", "warning DEPRECATION_EXPIRED_UNREMOVABLE", true},
		{"BACKWARD", "error DEPRECATION_EXPIRED", false},
	} {
		t.Run(tc.level, func(t *testing.T) {
			ctx := registry.WithActor(context.Background(), "alice")
			svc, clk := newContractService(t)
			const subject = "fu-value"
			v1 := `{"type":"record","name":"F","fields":[{"name":"id","type":"long"},{"name":"old","type":"string"}]}`
			v2 := `{"type":"record","name":"F","fields":[{"name":"id","type":"long"},{"name":"old","type":"string"},{"name":"n","type":"int","default":0}]}`
			level := tc.level
			if _, err := svc.SetConfig(ctx, subject, registry.ConfigUpdate{Compatibility: &level}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: v1}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Governance().Deprecate(ctx, subject, registry.DeprecateRequest{Item: governance.FieldItem(".old"), TTLDays: 1, Reason: "r"}); err != nil {
				t.Fatal(err)
			}
			clk.Day(5)
			for _, schema := range []string{v1, v2} {
				res, err := svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: schema}, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				var got string
				for _, f := range res.Findings {
					if f.Path == ".old" {
						got = f.Severity.String() + " " + f.RuleID
					}
				}
				if got != tc.want || res.Allowed != tc.allow {
					t.Errorf("dry run (existing %v): %q allowed %v, want %q %v (%s)", res.Existing, got, res.Allowed, tc.want, tc.allow, ruleIDs(res.Findings))
				}
				_, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: schema})
				if (err == nil) != tc.allow {
					t.Errorf("register (existing %v): err %v, want allowed %v", res.Existing, err, tc.allow)
				}
			}
		})
	}
}
