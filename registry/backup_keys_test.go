package registry_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/dek"
	"github.com/charter-dev/charter/registry/dump"
	"github.com/charter-dev/charter/registry/postgres"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
	"github.com/charter-dev/charter/registry/srerr"
)

// populateKeys gives svc a shared and a non-shared KEK (one soft-deleted
// with its DEK), DEKs of two subjects, two versions, two algorithms, one
// version soft-deleted, on day 11.
func populateKeys(t *testing.T, svc *registry.Service, clk *clock) {
	t.Helper()
	clk.Day(11)
	keys := svc.Keys()
	must[dek.Kek](t, "kek")(keys.CreateKek(as(t, "root"), dek.CreateKekRequest{Name: "kek1", KmsType: "local-kms", KmsKeyID: "mykey",
		KmsProps: map[string]string{"region": "eu"}, Doc: "the shipments key"}))
	must[dek.Kek](t, "kek")(keys.CreateKek(as(t, "root"), dek.CreateKekRequest{Name: "kek2", KmsType: "aws", KmsKeyID: "arn:aws:kms:eu-west-1:1:key/k", Shared: true}))
	for _, r := range []dek.CreateDekRequest{
		{Subject: "shipments-value", EncryptedKeyMaterial: "AQID"},
		{Subject: "shipments-value", Version: 2, EncryptedKeyMaterial: "BAUG"},
		{Subject: "shipments-value", Algorithm: dek.AES256SIV, EncryptedKeyMaterial: "BwgJ"},
		{Subject: "items-value", Algorithm: dek.AES128GCM, EncryptedKeyMaterial: "CgsM"},
	} {
		must[dek.Dek](t, "dek")(keys.CreateDek(as(t, "alice"), "kek1", r, false))
	}
	must[dek.Dek](t, "dek")(keys.CreateDek(as(t, "alice"), "kek2", dek.CreateDekRequest{Subject: "items-value", EncryptedKeyMaterial: "DQ4P"}, false))
	if err := keys.DeleteDekVersion(as(t, "alice"), "kek1", "shipments-value", 2, "", false); err != nil {
		t.Fatal(err)
	}
	if err := keys.DeleteDeks(as(t, "alice"), "kek2", "items-value", "", false); err != nil {
		t.Fatal(err)
	}
	if err := keys.DeleteKek(as(t, "root"), "kek2", false); err != nil {
		t.Fatal(err)
	}
}

// TestExportImportKeys: the DEK registry's keys are exported (KEKs and
// DEK versions, soft-deleted ones included, with their times and
// encryptedKeyMaterial) and an import into an empty registry restores
// them, so that it exports the same bytes; a merge of the same dump
// keeps them all; a dump whose DEK differs is a conflict that writes
// nothing; and the restored DEK registry answers as the original.
func TestExportImportKeys(t *testing.T) {
	src, clk := newGovService(t)
	populate(t, src, clk)
	populateKeys(t, src, clk)
	b1 := exportBytes(t, src)
	d1 := must[*dump.Dump](t, "read")(dump.Read(b1))
	if n := d1.Counts(); n.Keks != 2 || n.Deks != 5 {
		t.Fatalf("dump counts %+v, want 2 KEKs and 5 DEKs", n)
	}
	for _, want := range []string{`"keks": [`, `"deks": [`, `"encryptedKeyMaterial": "BAUG"`, `"kmsType": "aws-kms"`} {
		if !bytes.Contains(b1, []byte(want)) {
			t.Errorf("the dump lacks %s", want)
		}
	}

	dst, dclk := newGovService(t)
	dclk.Day(11) // the export time is the clock's: the same day gives the same bytes
	rep, err := dst.Import(as(t, "root"), d1, registry.ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if rep.Added.Keks != 2 || rep.Added.Deks != 5 {
		t.Errorf("import report %+v, want 2 KEKs and 5 DEKs added", rep.Added)
	}
	if got := withoutImportEntry(t, exportBytes(t, dst), "root", dclk.Now()); !bytes.Equal(got, b1) {
		t.Errorf("the restored registry exports differently: %s", dump.Diff(d1, must[*dump.Dump](t, "read")(dump.Read(got)), 0))
	}
	got := must[dek.Dek](t, "restored dek")(dst.Keys().Dek(t.Context(), "kek1", "shipments-value", dek.LatestVersion, "", true))
	want := must[dek.Dek](t, "original dek")(src.Keys().Dek(t.Context(), "kek1", "shipments-value", dek.LatestVersion, "", true))
	if got != want || got.Version != 2 || !got.Deleted {
		t.Errorf("restored latest DEK %+v, want %+v (version 2, soft-deleted)", got, want)
	}
	if _, err := dst.Keys().Kek(t.Context(), "kek2", false); !errors.Is(err, srerr.ErrKeyNotFound) {
		t.Errorf("restored soft-deleted KEK read without deleted: %v, want 40470", err)
	}

	rep, err = dst.Import(as(t, "root"), d1, registry.ImportOptions{Merge: true})
	if err != nil {
		t.Fatalf("merge the same dump: %v", err)
	}
	if rep.Added.Keks != 0 || rep.Added.Deks != 0 || rep.Kept.Keks != 2 || rep.Kept.Deks != 5 {
		t.Errorf("merge report added %+v kept %+v, want every key kept", rep.Added, rep.Kept)
	}

	d2 := must[*dump.Dump](t, "read")(dump.Read(b1))
	d2.Deks[0].EncryptedKeyMaterial = "AAAA"
	before := exportBytes(t, dst)
	_, err = dst.Import(as(t, "root"), d2, registry.ImportOptions{Merge: true})
	if !errors.Is(err, srerr.ErrImportConflict) || !strings.Contains(err.Error(), "the DEK of KEK") {
		t.Fatalf("merge of another DEK: %v, want 40980 naming the DEK", err)
	}
	if after := exportBytes(t, dst); !bytes.Equal(after, before) {
		t.Error("a refused import wrote something")
	}

	// A registry holding only keys is not empty.
	keysOnly, _ := newGovService(t)
	must[dek.Kek](t, "kek")(keysOnly.Keys().CreateKek(as(t, "root"), dek.CreateKekRequest{Name: "k", KmsType: "local-kms", KmsKeyID: "x"}))
	if _, err := keysOnly.Import(as(t, "root"), d1, registry.ImportOptions{}); !errors.Is(err, srerr.ErrImportConflict) || !strings.Contains(err.Error(), "1 KEK") {
		t.Errorf("import into a registry holding a KEK: %v, want 40980 saying it holds 1 KEK", err)
	}
}

// TestExportWithoutKeys: a registry without keys exports no keks or deks
// member, as before the DEK registry existed.
func TestExportWithoutKeys(t *testing.T) {
	src, clk := newGovService(t)
	populate(t, src, clk)
	if b := exportBytes(t, src); bytes.Contains(b, []byte(`"keks"`)) || bytes.Contains(b, []byte(`"deks"`)) {
		t.Errorf("a registry without keys exports keks or deks members")
	}
}

// TestExportImportKeysPostgres: keys exported from SQLite and imported
// into PostgreSQL export the same bytes (runs with
// REGISTRY_TEST_POSTGRES_DSN).
func TestExportImportKeysPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	src, clk := newGovService(t)
	populate(t, src, clk)
	populateKeys(t, src, clk)
	b1 := exportBytes(t, src)
	d1 := must[*dump.Dump](t, "read")(dump.Read(b1))
	store, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	dclk := &clock{now: day0}
	dclk.Day(11)
	dst := registry.NewService(store, formats.Formats(), registry.WithClock(dclk.Now))
	if _, err := dst.Import(as(t, "root"), d1, registry.ImportOptions{}); err != nil {
		t.Fatalf("import into PostgreSQL: %v", err)
	}
	if got := withoutImportEntry(t, exportBytes(t, dst), "root", dclk.Now()); !bytes.Equal(got, b1) {
		t.Errorf("PostgreSQL exports differently: %s", dump.Diff(d1, must[*dump.Dump](t, "read")(dump.Read(got)), 0))
	}
}
