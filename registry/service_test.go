package registry_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/registry/srerr"
)

func openStore(t testing.TB) registry.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

func newService(t testing.TB, formats ...compat.Format) *registry.Service {
	t.Helper()
	if len(formats) == 0 {
		formats = []compat.Format{avro.Format{}}
	}
	return registry.NewService(openStore(t), formats)
}

func mustRegister(t testing.TB, svc *registry.Service, subject string, req registry.RegisterRequest) registry.SubjectSchema {
	t.Helper()
	ss, err := svc.Register(context.Background(), subject, req)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	return ss
}

func wantCode(t *testing.T, err error, want *srerr.Error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %s (%d)", err, want.Name, want.Code)
	}
}

const (
	recA  = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"}]}`
	recAb = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"},{"name":"b","type":"string","default":""}]}`
	// recAnorm is recA with keys in another order and a redundant
	// namespace-free full name: equal once normalized.
	recAnorm = `{"fields":[{"type":"string","name":"a"}],"name":"A","type":"record"}`
)

func TestRegisterIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	first := mustRegister(t, svc, "x", registry.RegisterRequest{Schema: recA})
	if first.Schema.ID != 1 || first.Version != 1 {
		t.Fatalf("first registration = id %d version %d, want 1/1", first.Schema.ID, first.Version)
	}
	// Same text with metadata: another identity, another ID.
	withMeta := mustRegister(t, svc, "y", registry.RegisterRequest{Schema: recA, Metadata: []byte(`{"properties": {"owner": "team-a"}}`)})
	if withMeta.Schema.ID == first.Schema.ID {
		t.Fatalf("metadata did not change the schema's identity (id %d)", withMeta.Schema.ID)
	}
	// Key order of metadata does not matter.
	again := mustRegister(t, svc, "z", registry.RegisterRequest{Schema: recA, Metadata: []byte(`{ "properties":{"owner":"team-a"} }`)})
	if again.Schema.ID != withMeta.Schema.ID {
		t.Fatalf("same metadata, white space differing: id %d, want %d", again.Schema.ID, withMeta.Schema.ID)
	}
	// Keys in another order: the same schema.
	plain := mustRegister(t, svc, "n1", registry.RegisterRequest{Schema: recAnorm})
	norm := mustRegister(t, svc, "n2", registry.RegisterRequest{Schema: recAnorm, Normalize: true})
	norm2 := mustRegister(t, svc, "n3", registry.RegisterRequest{Schema: recA, Normalize: true})
	if norm.Schema.ID != norm2.Schema.ID {
		t.Errorf("normalize: ids %d and %d for equal schemas", norm.Schema.ID, norm2.Schema.ID)
	}
	if plain.Schema.ID != first.Schema.ID {
		// The canonical form writes keys in Java's order, so both
		// spellings are one schema, as in Confluent.
		t.Errorf("key order changed identity: ids %d and %d", plain.Schema.ID, first.Schema.ID)
	}
	got, err := svc.Lookup(ctx, "n2", registry.RegisterRequest{Schema: recA}, false)
	if err != nil {
		t.Fatalf("lookup of the non-normalized text under a normalized subject: %v", err)
	}
	if got.Schema.ID != norm.Schema.ID {
		t.Errorf("lookup id %d, want %d", got.Schema.ID, norm.Schema.ID)
	}
}

func TestRegisterConcurrentSameSchema(t *testing.T) {
	t.Parallel()
	svc := newService(t)
	const n = 16
	ids := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss, err := svc.Register(context.Background(), fmt.Sprintf("s%d", i%4), registry.RegisterRequest{Schema: recA})
			if err != nil {
				t.Errorf("register: %v", err)
				return
			}
			ids[i] = ss.Schema.ID
		}()
	}
	wg.Wait()
	for i, id := range ids {
		if id != ids[0] {
			t.Fatalf("registration %d got id %d, registration 0 got %d", i, id, ids[0])
		}
	}
	vs, err := svc.SubjectVersions(context.Background(), "s0", registry.SubjectVersionsQuery{})
	if err != nil || len(vs) != 1 {
		t.Fatalf("s0 versions %v, %v; want exactly one", vs, err)
	}
}

// failingStore fails PutVersion inside Update, after CreateSchema ran.
type failingStore struct{ registry.Store }

type failingTx struct{ registry.Tx }

var errDisk = errors.New("disk full")

func (f failingStore) Update(ctx context.Context, fn func(registry.Tx) error) error {
	return f.Store.Update(ctx, func(tx registry.Tx) error { return fn(failingTx{tx}) })
}

func (failingTx) PutVersion(context.Context, registry.SubjectVersion) error { return errDisk }

func TestRegisterAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := openStore(t)
	svc := registry.NewService(failingStore{store}, []compat.Format{avro.Format{}})
	_, err := svc.Register(ctx, "x", registry.RegisterRequest{Schema: recA})
	if !errors.Is(err, errDisk) {
		t.Fatalf("register error %v, want the store's", err)
	}
	if code, _, _ := srerr.Code(err); code != 50001 {
		t.Errorf("store failure maps to %d, want 50001", code)
	}
	ok := registry.NewService(store, []compat.Format{avro.Format{}})
	if max, err := ok.MaxSchemaID(ctx, ""); err != nil || max != 0 {
		t.Fatalf("after a failed register: max id %d (%v), want 0: the schema row was half-written", max, err)
	}
	// The next good registration gets ID 1.
	if ss := mustRegister(t, ok, "x", registry.RegisterRequest{Schema: recA}); ss.Schema.ID != 1 {
		t.Errorf("id %d after a rolled back register, want 1", ss.Schema.ID)
	}
}

// fakeFormat is a second schema language for tests: any text parses; a
// reader reads a writer when the writer's text is a prefix of its own.
type fakeFormat struct{}

type fakeSchema string

func (fakeSchema) Type() compat.SchemaType { return compat.JSON }
func (s fakeSchema) Canonical() string     { return string(s) }
func (s fakeSchema) Normalized() string    { return strings.ToLower(string(s)) }

func (fakeFormat) Type() compat.SchemaType { return compat.JSON }
func (fakeFormat) Parse(text string, _ []compat.Dependency) (compat.Schema, error) {
	if strings.Contains(text, "!") {
		return nil, errors.New("line 1: '!' is not allowed")
	}
	return fakeSchema(strings.TrimSpace(text)), nil
}
func (fakeFormat) CheckRead(reader, writer compat.Schema) []compat.Violation {
	if strings.HasPrefix(reader.Canonical(), writer.Canonical()) {
		return nil
	}
	return []compat.Violation{{RuleID: "FAKE_NOT_PREFIX", Path: ".", Message: "the writer's text is not a prefix of the reader's"}}
}

func TestFormatsAndTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t, avro.Format{}, fakeFormat{})
	if got := fmt.Sprint(svc.Types()); got != "[JSON AVRO]" {
		t.Fatalf("Types() = %s", got)
	}
	mustRegister(t, svc, "mixed", registry.RegisterRequest{Schema: recA})
	// Under BACKWARD another language is incompatible, with a finding.
	res, err := svc.CheckCompatibility(ctx, "mixed", 0, registry.RegisterRequest{Schema: "abc", Type: compat.JSON})
	if err != nil {
		t.Fatal(err)
	}
	if res.Compatible || len(res.Findings) != 1 || res.Findings[0].RuleID != gate.RuleSchemaTypeChanged {
		t.Fatalf("cross-type check = %+v, want one %s finding", res, gate.RuleSchemaTypeChanged)
	}
	if _, err := svc.SetConfig(ctx, "mixed", levelUpdate(compat.None)); err != nil {
		t.Fatal(err)
	}
	// Types are matched case-sensitively, as in Confluent.
	_, err = svc.Register(ctx, "mixed", registry.RegisterRequest{Schema: "abc", Type: "json"})
	wantCode(t, err, srerr.ErrInvalidSchema)
	ss := mustRegister(t, svc, "mixed", registry.RegisterRequest{Schema: "abc", Type: compat.JSON})
	if ss.Schema.Type != compat.JSON || ss.Version != 2 {
		t.Fatalf("registered %+v", ss)
	}
	if _, err := svc.SetConfig(ctx, "mixed", levelUpdate(compat.Backward)); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, "mixed", registry.RegisterRequest{Schema: "abcd", Type: compat.JSON})
	_, err = svc.Register(ctx, "mixed", registry.RegisterRequest{Schema: "xyz", Type: compat.JSON})
	wantCode(t, err, srerr.ErrIncompatibleSchema)
	if !strings.Contains(err.Error(), "FAKE_NOT_PREFIX") {
		t.Errorf("409 message %q does not name the rule", err.Error())
	}
	_, err = svc.Register(ctx, "mixed", registry.RegisterRequest{Schema: "a!", Type: compat.JSON})
	wantCode(t, err, srerr.ErrInvalidSchema)
	if !strings.Contains(err.Error(), "line 1") {
		t.Errorf("parse error %q lost the parser's position", err.Error())
	}
	_, err = svc.Register(ctx, "mixed", registry.RegisterRequest{Schema: "x", Type: compat.Protobuf})
	wantCode(t, err, srerr.ErrInvalidSchema)
	if !strings.Contains(err.Error(), "supported types: JSON, AVRO") {
		t.Errorf("unsupported type message %q does not list the supported types", err.Error())
	}
}

func TestTransitiveFindingsEveryVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t, fakeFormat{})
	for _, s := range []string{"a", "ab", "abc"} {
		mustRegister(t, svc, "t", registry.RegisterRequest{Schema: s, Type: compat.JSON})
	}
	if _, err := svc.SetConfig(ctx, "t", levelUpdate(compat.FullTransitive)); err != nil {
		t.Fatal(err)
	}
	res, err := svc.CheckCompatibility(ctx, "t", 0, registry.RegisterRequest{Schema: "zz", Type: compat.JSON})
	if err != nil {
		t.Fatal(err)
	}
	// Two directions × three versions, newest first.
	if len(res.Findings) != 6 || res.Findings[0].Version != 3 || res.Findings[5].Version != 1 {
		t.Fatalf("findings = %+v, want 6, versions 3 down to 1", res.Findings)
	}
	msgs := strings.Join(res.Messages, "\n")
	for _, want := range []string{"{oldSchemaVersion: 3}", "{oldSchemaVersion: 1}", "{oldSchema: 'abc'}", "compatibility: 'FULL_TRANSITIVE'", "FORWARD: version 2 reading", `description:'the writer\'s text`} {
		if !strings.Contains(msgs, want) {
			t.Errorf("messages lack %q:\n%s", want, msgs)
		}
	}
	// Against one version, only that one.
	res, err = svc.CheckCompatibility(ctx, "t", 2, registry.RegisterRequest{Schema: "zz", Type: compat.JSON})
	if err != nil || len(res.Findings) != 2 || res.Findings[0].Version != 2 {
		t.Fatalf("check against v2 = %+v, %v", res.Findings, err)
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"latest", registry.Latest, true}, {"-1", registry.Latest, true},
		{"2147483647", 2147483647, true}, {"2147483648", 0, false}, {"0", 0, false},
		{"-2", 0, false}, {"abc", 0, false}, {"", 0, false}, {"+1", 0, false},
		{"1.0", 0, false}, {"LATEST", 0, false}, {"99999999999", 0, false},
	}
	for _, tc := range tests {
		got, err := registry.ParseVersion(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d, ok=%t", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, srerr.ErrInvalidVersion) {
			t.Errorf("ParseVersion(%q) error %v is not 42202", tc.in, err)
		}
	}
}

func TestValidateSubject(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"orders-value", "a/b c", "ünicødé.v1", "x:y"} {
		if err := registry.ValidateSubject(ok); err != nil {
			t.Errorf("ValidateSubject(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "  ", "a\x00b", "tab\there", "\xff", strings.Repeat("s", registry.MaxSubjectLength+1)} {
		if err := registry.ValidateSubject(bad); !errors.Is(err, srerr.ErrInvalidSubject) {
			t.Errorf("ValidateSubject(%q) = %v, want 42208", bad, err)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := registry.Fingerprint(compat.Avro, recA, nil, nil, nil)
	if len(base) != 64 {
		t.Fatalf("fingerprint %q is not hex SHA-256", base)
	}
	same := []string{
		registry.Fingerprint(compat.Avro, recA, []registry.Reference{}, []byte("null"), []byte(" ")),
	}
	for _, fp := range same {
		if fp != base {
			t.Errorf("absent metadata spelled differently changed the fingerprint")
		}
	}
	differ := map[string]string{
		"type":        registry.Fingerprint(compat.JSON, recA, nil, nil, nil),
		"text":        registry.Fingerprint(compat.Avro, recAb, nil, nil, nil),
		"references":  registry.Fingerprint(compat.Avro, recA, []registry.Reference{{Name: "n", Subject: "s", Version: 1}}, nil, nil),
		"ref version": registry.Fingerprint(compat.Avro, recA, []registry.Reference{{Name: "n", Subject: "s", Version: 2}}, nil, nil),
		"metadata":    registry.Fingerprint(compat.Avro, recA, nil, []byte(`{"a":1}`), nil),
		"ruleSet":     registry.Fingerprint(compat.Avro, recA, nil, nil, []byte(`{"a":1}`)),
	}
	seen := map[string]string{base: "base"}
	for name, fp := range differ {
		if prev, dup := seen[fp]; dup {
			t.Errorf("fingerprint of %s equals that of %s", name, prev)
		}
		seen[fp] = name
	}
}

func TestModeAndConfigErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	_, err := svc.SetMode(ctx, "", "sideways", false)
	wantCode(t, err, srerr.ErrInvalidMode)
	_, err = svc.SetConfig(ctx, "", levelUpdate("SIDEWAYS"))
	wantCode(t, err, srerr.ErrInvalidCompatibility)
	if m, err := svc.SetMode(ctx, "s", "readonly", false); err != nil || m != registry.ModeReadOnly {
		t.Fatalf("SetMode lower case = %s, %v", m, err)
	}
	_, err = svc.Register(ctx, "s", registry.RegisterRequest{Schema: recA})
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	mustRegister(t, svc, "other", registry.RegisterRequest{Schema: recA})
	// Global IMPORT needs force while subjects exist.
	_, err = svc.SetMode(ctx, "", "IMPORT", false)
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	if _, err := svc.SetMode(ctx, "", "IMPORT", true); err != nil {
		t.Fatal(err)
	}
	// Subject READONLY still wins over a global IMPORT.
	_, err = svc.Register(ctx, "s", registry.RegisterRequest{Schema: recAb, ID: 50})
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	ss, err := svc.Register(ctx, "imp", registry.RegisterRequest{Schema: recAb, ID: 50, Version: 7})
	if err != nil || ss.Schema.ID != 50 || ss.Version != 7 {
		t.Fatalf("import = %+v, %v", ss, err)
	}
	if _, err := svc.SetMode(ctx, "", "READWRITE", false); err != nil {
		t.Fatal(err)
	}
	// IDs continue above imported ones.
	if ss := mustRegister(t, svc, "after", registry.RegisterRequest{Schema: `{"type":"string"}`}); ss.Schema.ID != 51 {
		t.Errorf("id after import = %d, want 51", ss.Schema.ID)
	}
}

func TestPermanentDeleteForgetsOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := openStore(t)
	svc := registry.NewService(store, []compat.Format{avro.Format{}})
	var evicted []int64
	svc.OnSchemaForgotten(func(id registry.SchemaKey) { evicted = append(evicted, id.ID) })
	mustRegister(t, svc, "a", registry.RegisterRequest{Schema: recA})  // id 1
	mustRegister(t, svc, "b", registry.RegisterRequest{Schema: recA})  // id 1, shared
	mustRegister(t, svc, "a", registry.RegisterRequest{Schema: recAb}) // id 2, only in a
	for _, permanent := range []bool{false, true} {
		if _, err := svc.DeleteSubject(ctx, "a", permanent); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(evicted) != "[2]" {
		t.Fatalf("evicted %v, want [2] (id 1 is still held by b)", evicted)
	}
	stored := func(id int64) bool {
		t.Helper()
		err := store.View(ctx, func(tx registry.Tx) error {
			_, err := tx.SchemaByID(ctx, "", id)
			return err
		})
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	if !stored(1) || stored(2) {
		t.Fatalf("stored: id 1 %v, id 2 %v; want only id 1 left in the store", stored(1), stored(2))
	}
	if _, err := svc.SchemaByID(ctx, "", 1); err != nil {
		t.Errorf("id 1, still held by subject b: %v", err)
	}
	_, err := svc.SchemaByID(ctx, "", 2)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	_, err = svc.SubjectsOfID(ctx, "", 2, "", true)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	// Soft-deleted versions keep their IDs.
	if _, err := svc.DeleteVersion(ctx, "b", 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SchemaByID(ctx, "", 1); err != nil {
		t.Errorf("id 1 after a soft delete: %v", err)
	}
	if _, err := svc.DeleteVersion(ctx, "b", 1, true); err != nil {
		t.Fatal(err)
	}
	if stored(1) || fmt.Sprint(evicted) != "[2 1]" {
		t.Errorf("after the last version of id 1 went: stored %v, evicted %v; want gone and [2 1]", stored(1), evicted)
	}
	_, err = svc.SchemaByID(ctx, "", 1)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	// The same content registered again gets a new ID, above the forgotten ones.
	if ss := mustRegister(t, svc, "c", registry.RegisterRequest{Schema: recA}); ss.Schema.ID != 3 {
		t.Errorf("re-registered content: id %d, want 3", ss.Schema.ID)
	}
}

// levelUpdate is a config change that sets only the compatibility level.
func levelUpdate[L ~string](l L) registry.ConfigUpdate {
	s := string(l)
	return registry.ConfigUpdate{Compatibility: &s}
}
