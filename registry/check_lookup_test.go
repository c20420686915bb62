package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// TestCheckFindsExistingAsRegistration: the dry run finds the version a
// registration would reuse with the same lookup (findInSubject): a
// reordered schema under normalize, and a schema sent without its
// contract that an earlier version (not the latest) holds.
func TestCheckFindsExistingAsRegistration(t *testing.T) {
	ctx := context.Background()
	svc, _ := newGovService(t)
	on := true
	if _, err := svc.SetConfig(ctx, "norm", registry.ConfigUpdate{Compatibility: ptr("NONE"), Normalize: &on}); err != nil {
		t.Fatal(err)
	}
	ab := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`
	ba := `{"properties":{"b":{"type":"integer"},"a":{"type":"string"}},"type":"object"}`
	mustRegister(t, svc, "norm", registry.RegisterRequest{Schema: ab, Type: compat.JSON})
	if _, err := svc.SetConfig(ctx, "contract", registry.ConfigUpdate{Compatibility: ptr("NONE")}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, "contract", registry.RegisterRequest{Schema: recA, Metadata: []byte(`{"properties":{"k":"1"}}`)})
	mustRegister(t, svc, "contract", registry.RegisterRequest{Schema: recAb, Metadata: []byte(`{"properties":{"k":"2"}}`)})
	for _, tc := range []struct {
		subject string
		req     registry.RegisterRequest
		version int
	}{
		{"norm", registry.RegisterRequest{Schema: ba, Type: compat.JSON}, 1},
		{"contract", registry.RegisterRequest{Schema: recA}, 1},
	} {
		res, err := svc.Governance().Check(ctx, tc.subject, tc.req, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Existing || res.Version != tc.version {
			t.Errorf("%s: dry run: existing %v version %d, want version %d", tc.subject, res.Existing, res.Version, tc.version)
		}
		v, err := svc.Register(ctx, tc.subject, tc.req)
		if err != nil || v.Version != tc.version {
			t.Errorf("%s: registration: version %d (%v), want %d", tc.subject, v.Version, err, tc.version)
		}
	}
}
