package dek

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/srerr"
)

// memStore is a KeyTx in memory: enough for the service's own rules (the
// stores' conformance is registry/storetest's).
type memStore struct {
	keks   map[string]Kek
	deks   map[DekID]Dek
	audits []string
}

func newMem() *memStore { return &memStore{keks: map[string]Kek{}, deks: map[DekID]Dek{}} }

func (m *memStore) View(ctx context.Context, fn func(KeyTx) error) error { return fn(m) }
func (m *memStore) Update(ctx context.Context, fn func(KeyTx, Audit) error) error {
	keks, deks, n := maps.Clone(m.keks), maps.Clone(m.deks), len(m.audits)
	err := fn(m, func(action, subject, target string, _, _ any) error {
		m.audits = append(m.audits, action+" "+subject+" "+target)
		return nil
	})
	if err != nil { // roll back
		m.keks, m.deks, m.audits = keks, deks, m.audits[:n]
	}
	return err
}
func (m *memStore) Kek(_ context.Context, name string) (Kek, bool, error) {
	k, ok := m.keks[name]
	return k, ok, nil
}
func (m *memStore) Keks(_ context.Context, deleted bool) ([]Kek, error) {
	out := []Kek{}
	for _, k := range m.keks {
		if deleted || !k.Deleted {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b Kek) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
func (m *memStore) PutKek(_ context.Context, k Kek) error          { m.keks[k.Name] = k; return nil }
func (m *memStore) DeleteKek(_ context.Context, name string) error { delete(m.keks, name); return nil }
func (m *memStore) Dek(_ context.Context, id DekID) (Dek, bool, error) {
	d, ok := m.deks[id]
	return d, ok, nil
}
func (m *memStore) Deks(_ context.Context, q DekQuery) ([]Dek, error) {
	out := []Dek{}
	for _, d := range m.deks {
		if (q.KekName == "" || d.KekName == q.KekName) && (q.Subject == "" || d.Subject == q.Subject) &&
			(q.Algorithm == "" || d.Algorithm == q.Algorithm) && (q.IncludeDeleted || !d.Deleted) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Dek) int {
		return cmp.Or(strings.Compare(a.KekName, b.KekName), strings.Compare(a.Subject, b.Subject),
			strings.Compare(string(a.Algorithm), string(b.Algorithm)), cmp.Compare(a.Version, b.Version))
	})
	return out, nil
}
func (m *memStore) PutDek(_ context.Context, d Dek) error {
	d.KeyMaterial = ""
	m.deks[d.ID()] = d
	return nil
}
func (m *memStore) DeleteDek(_ context.Context, id DekID) error { delete(m.deks, id); return nil }
func (m *memStore) CountKeys(context.Context) (int, int, error) { return len(m.keks), len(m.deks), nil }

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"kek": true, "_k": true, "k-1_x": true, "ключ": true, strings.Repeat("k", 256): true,
		"": false, "1k": false, "-k": false, "k k": false, "k.x": false, strings.Repeat("k", 257): false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]int{"latest": LatestVersion, "-1": LatestVersion, "1": 1, "2147483647": 2147483647} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-2", "x", "", "1.5"} {
		if _, err := ParseVersion(in); !errors.Is(err, srerr.ErrInvalidVersion) {
			t.Errorf("ParseVersion(%q) = %v, want 42202", in, err)
		}
	}
}

// TestMaxKeys: past maxKeys KEKs, or DEKs, a create is 40972 and writes
// nothing; recreating an existing key is not a new one.
func TestMaxKeys(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	s := New(m, func() time.Time { return time.UnixMilli(1000) })
	s.maxKeys = 2
	for _, n := range []string{"a", "b"} {
		if _, err := s.CreateKek(ctx, CreateKekRequest{Name: n, KmsType: "local-kms", KmsKeyID: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateKek(ctx, CreateKekRequest{Name: "c", KmsType: "local-kms", KmsKeyID: "x"}); !errors.Is(err, srerr.ErrTooManyKeys) {
		t.Errorf("third KEK: %v, want 40972", err)
	}
	for _, v := range []int{1, 2} {
		if _, err := s.CreateDek(ctx, "a", CreateDekRequest{Subject: "s", Version: v, EncryptedKeyMaterial: "AQID"}, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateDek(ctx, "a", CreateDekRequest{Subject: "s", Version: 3, EncryptedKeyMaterial: "AQID"}, false); !errors.Is(err, srerr.ErrTooManyKeys) {
		t.Errorf("third DEK: %v, want 40972", err)
	}
	if _, err := s.CreateDek(ctx, "a", CreateDekRequest{Subject: "s", Version: 2, EncryptedKeyMaterial: "BAUG"}, true); err != nil {
		t.Errorf("rewrap of an existing DEK at the limit: %v", err)
	}
	if len(m.keks) != 2 || len(m.deks) != 2 {
		t.Errorf("%d KEKs, %d DEKs stored, want 2 and 2", len(m.keks), len(m.deks))
	}
	if d := m.deks[DekID{"a", "s", AES256GCM, 2}]; d.EncryptedKeyMaterial != "BAUG" {
		t.Errorf("rewrapped DEK %+v", d)
	}
}

// TestAuditEntries: every change is audited once, a no-op not at all,
// and the audit log never holds key material.
func TestAuditEntries(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	s := New(m, nil)
	mustOK := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.CreateKek(ctx, CreateKekRequest{Name: "k", KmsType: "gcp", KmsKeyID: "projects/p/keys/k"})
	mustOK(err)
	if m.keks["k"].KmsType != "gcp-kms" {
		t.Errorf("kmsType %q, want gcp-kms", m.keks["k"].KmsType)
	}
	doc := "d"
	_, err = s.UpdateKek(ctx, "k", UpdateKekRequest{Doc: &doc})
	mustOK(err)
	_, err = s.UpdateKek(ctx, "k", UpdateKekRequest{Doc: &doc}) // no change
	mustOK(err)
	_, err = s.CreateDek(ctx, "k", CreateDekRequest{Subject: "s", EncryptedKeyMaterial: "c2VjcmV0"}, false)
	mustOK(err)
	mustOK(s.DeleteDeks(ctx, "k", "s", "", false))
	mustOK(s.DeleteDeks(ctx, "k", "s", "", false)) // already deleted
	mustOK(s.UndeleteDeks(ctx, "k", "s", ""))
	want := []string{"kek.create  k", "kek.update  k", "dek.create s k/AES256_GCM/1", "dek.delete s k/AES256_GCM/1", "dek.undelete s k/AES256_GCM/1"}
	if !slices.Equal(m.audits, want) {
		t.Errorf("audit %q, want %q", m.audits, want)
	}
	if d := auditDek(m.deks[DekID{"k", "s", AES256GCM, 1}]); d.EncryptedKeyMaterial != "" || d.KeyMaterial != "" {
		t.Errorf("audited DEK %+v holds key material", d)
	}
	if k := auditKek(Kek{Name: "k", KmsProps: map[string]string{"token": "s3cret"}}); k.KmsProps["token"] != "(set)" {
		t.Errorf("audited KEK %+v holds a kmsProps value", k)
	}
}
