package registry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
)

// cancellingAvro is the Avro format calling cancel at its first
// comparison (as a client that hangs up once its request is under way)
// and counting its comparisons. It does not embed avro.Format, so it is
// no compat.Summarizer: the transitive checks compare each version in
// full, through its CheckRead.
type cancellingAvro struct {
	avro   avro.Format
	cancel *context.CancelFunc
	calls  *int
}

func (f cancellingAvro) Type() compat.SchemaType { return f.avro.Type() }

func (f cancellingAvro) Parse(text string, deps []compat.Dependency) (compat.Schema, error) {
	return f.avro.Parse(text, deps)
}

func (f cancellingAvro) CheckRead(reader, writer compat.Schema) []compat.Violation {
	*f.calls++
	if *f.cancel != nil {
		(*f.cancel)()
	}
	return f.avro.CheckRead(reader, writer)
}

// TestWorkStopsWithTheClient: a compatibility check and a registration at
// FULL_TRANSITIVE over many versions stop after the comparison during
// which their context ends (the client disconnected), with the context's
// error; the registration stores nothing, and the registry takes the
// next registration.
func TestWorkStopsWithTheClient(t *testing.T) {
	var cancel context.CancelFunc
	calls := 0
	svc := newService(t, cancellingAvro{cancel: &cancel, calls: &calls})
	bg := context.Background()
	for i := range 20 {
		mustRegister(t, svc, "s", registry.RegisterRequest{Schema: fmt.Sprintf(
			`{"type":"record","name":"R","fields":[{"name":"f%d","type":"int","default":0}]}`, i)})
	}
	level := string(compat.FullTransitive)
	if _, err := svc.SetConfig(bg, "s", registry.ConfigUpdate{Compatibility: &level}); err != nil {
		t.Fatal(err)
	}
	next := registry.RegisterRequest{Schema: `{"type":"record","name":"R","fields":[{"name":"g","type":"int","default":0}]}`}
	for _, op := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"check", func(ctx context.Context) error { _, err := svc.CheckCompatibility(ctx, "s", 0, next); return err }},
		{"register", func(ctx context.Context) error { _, err := svc.Register(ctx, "s", next); return err }},
	} {
		t.Run(op.name, func(t *testing.T) {
			var ctx context.Context
			ctx, cancel = context.WithCancel(bg)
			defer func() { cancel = nil }()
			calls = 0
			err := op.run(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want context.Canceled", err)
			}
			if calls != 1 {
				t.Errorf("%d comparisons, want 1 (of 40) before stopping", calls)
			}
		})
	}
	vs, err := svc.SubjectVersions(bg, "s", registry.SubjectVersionsQuery{})
	if err != nil || len(vs) != 20 {
		t.Fatalf("versions after the cancelled registration: %v, %v; want 20", vs, err)
	}
	calls = 0
	if _, err := svc.Register(bg, "s", next); err != nil {
		t.Fatalf("registration after the cancelled ones: %v", err)
	}
	if calls < 40 {
		t.Errorf("the registration made %d comparisons, want at least 40 (and the semantic version's)", calls)
	}
}
