package client_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

const customerV1 = `{"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"string"}]}`

func TestLookupAndRegisterVersion(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()
	meta := &client.Metadata{Properties: map[string]string{"owner": "sales"}}
	v1, err := c.RegisterVersion(ctx, "orders", client.NewSchema{Text: orderV1, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	if v1.Subject != "orders" || v1.Version != 1 || v1.ID <= 0 || v1.Metadata == nil || v1.Metadata.Properties["owner"] != "sales" {
		t.Fatalf("RegisterVersion = %+v", v1)
	}
	// v2 inherits v1's metadata: the version returned is what is stored.
	v2, err := c.RegisterVersion(ctx, "orders", client.NewSchema{Text: orderV2})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != 2 || v2.ID == v1.ID || v2.Metadata == nil || v2.Metadata.Properties["owner"] != "sales" {
		t.Errorf("RegisterVersion(v2) = %+v", v2)
	}
	// Registering v1 again returns version 1.
	again, err := c.RegisterVersion(ctx, "orders", client.NewSchema{Text: orderV1, Metadata: meta})
	if err != nil || again.Version != 1 || again.ID != v1.ID {
		t.Errorf("RegisterVersion(v1 again) = %+v, %v", again, err)
	}
	// The same schema under another subject keeps its ID.
	other, err := c.RegisterVersion(ctx, "orders-copy", client.NewSchema{Text: orderV1, Metadata: meta})
	if err != nil || other.Subject != "orders-copy" || other.Version != 1 || other.ID != v1.ID {
		t.Errorf("RegisterVersion(other subject) = %+v, %v", other, err)
	}

	got, err := c.Lookup(ctx, "orders", client.NewSchema{Text: orderV1, Metadata: meta})
	if err != nil || got.Version != 1 || got.ID != v1.ID {
		t.Errorf("Lookup(v1) = %+v, %v", got, err)
	}
	// Whitespace does not matter: the registry compares canonical forms.
	spaced := "{ \"type\": \"record\", \"name\": \"Order\",\n \"fields\": [{\"name\": \"id\", \"type\": \"string\"}] }"
	if got, err := c.Lookup(ctx, "orders", client.NewSchema{Text: spaced, Metadata: meta}); err != nil || got.Version != 1 {
		t.Errorf("Lookup(spaced v1) = %+v, %v", got, err)
	}
	if _, err := c.Lookup(ctx, "orders", client.NewSchema{Text: customerV1}); !errors.Is(err, srerr.ErrSchemaNotFound) {
		t.Errorf("Lookup of an unregistered schema: err = %v, want 40403", err)
	}
	if _, err := c.Lookup(ctx, "nope", client.NewSchema{Text: orderV1}); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("Lookup under an unknown subject: err = %v, want 40401", err)
	}
	if _, err := c.RegisterVersion(ctx, "orders", client.NewSchema{Text: `{"type":"record","name":"Order","fields":[{"name":"id","type":"int"}]}`}); !errors.Is(err, srerr.ErrIncompatibleSchema) {
		t.Errorf("RegisterVersion of an incompatible schema: err = %v, want 409", err)
	}
}

func TestDeletes(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()
	if _, err := c.RegisterVersion(ctx, "customer", client.NewSchema{Text: customerV1}); err != nil {
		t.Fatal(err)
	}
	withRef := `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"acme.Customer"}]}`
	ord, err := c.RegisterVersion(ctx, "orders", client.NewSchema{Text: withRef,
		References: []client.Reference{{Name: "acme.Customer", Subject: "customer", Version: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := c.ReferencedBy(ctx, "customer", 1); err != nil || !reflect.DeepEqual(ids, []int64{ord.ID}) {
		t.Errorf("ReferencedBy = %v, %v; want [%d]", ids, err, ord.ID)
	}
	if _, err := c.DeleteVersion(ctx, "customer", 1, false); !errors.Is(err, srerr.ErrReferenceExists) {
		t.Errorf("deleting a referenced version: err = %v, want 42206", err)
	}
	for _, text := range []string{orderV1, orderV2} {
		if _, err := c.Register(ctx, "plain", client.NewSchema{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := c.DeleteVersion(ctx, "plain", client.Latest, false); err != nil || n != 2 {
		t.Errorf("DeleteVersion(latest) = %d, %v", n, err)
	}
	states, err := c.VersionStates(ctx, "plain", true)
	if want := []client.VersionState{{Version: 1}, {Version: 2, Deleted: true}}; err != nil || !reflect.DeepEqual(states, want) {
		t.Errorf("VersionStates(deleted) = %v, %v; want %v", states, err, want)
	}
	if states, err := c.VersionStates(ctx, "plain", false); err != nil || !reflect.DeepEqual(states, []client.VersionState{{Version: 1}}) {
		t.Errorf("VersionStates = %v, %v", states, err)
	}
	if _, err := c.DeleteVersion(ctx, "plain", 1, true); !errors.Is(err, srerr.ErrVersionNotSoftDeleted) {
		t.Errorf("permanent delete of a live version: err = %v, want 40407", err)
	}
	if n, err := c.DeleteVersion(ctx, "plain", 2, true); err != nil || n != 2 {
		t.Errorf("permanent delete of version 2 = %d, %v", n, err)
	}
	if _, err := c.DeleteSubject(ctx, "plain", true); !errors.Is(err, srerr.ErrSubjectNotSoftDeleted) {
		t.Errorf("permanent delete of a live subject: err = %v, want 40405", err)
	}
	if vs, err := c.DeleteSubject(ctx, "plain", false); err != nil || !reflect.DeepEqual(vs, []int{1}) {
		t.Errorf("DeleteSubject = %v, %v; want [1]", vs, err)
	}
	if vs, err := c.DeleteSubject(ctx, "plain", true); err != nil || !reflect.DeepEqual(vs, []int{1}) {
		t.Errorf("DeleteSubject(permanent) = %v, %v; want [1]", vs, err)
	}
	if _, err := c.VersionStates(ctx, "plain", true); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("VersionStates after a permanent delete: err = %v, want 40401", err)
	}
	if _, err := c.DeleteSubject(ctx, "nope", false); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("DeleteSubject(unknown): err = %v", err)
	}
}
