package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/dek"
)

// keyTx returns tx's DEK registry part, failing the test when the store's
// transactions do not implement dek.KeyTx (every store must).
func keyTx(t *testing.T, tx registry.Tx) dek.KeyTx {
	t.Helper()
	k, ok := tx.(dek.KeyTx)
	if !ok {
		t.Fatalf("%T does not implement dek.KeyTx", tx)
	}
	return k
}

// testKeks: KEKs are put, read back field for field (kmsProps nil read as
// empty), replaced, listed by name with and without soft-deleted ones,
// counted and deleted; an absent KEK is not found, without an error.
func testKeks(t *testing.T, s registry.Store) {
	b := dek.Kek{Name: "b-kek", KmsType: "local-kms", KmsKeyID: "local-kms://b", KmsProps: map[string]string{"x": "1", "a": "é"},
		Doc: "the b key", Shared: true, Ts: 1700000000123}
	a := dek.Kek{Name: "a-kek", KmsType: "aws-kms", KmsKeyID: "arn:aws:kms:eu-west-1:1:key/a", Ts: 1, Deleted: true}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		if err := k.PutKek(ctx, b); err != nil {
			return err
		}
		return k.PutKek(ctx, a)
	})
	a.KmsProps = map[string]string{}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		got, ok, err := k.Kek(ctx, "b-kek")
		if err != nil || !ok || !reflect.DeepEqual(got, b) {
			t.Errorf("Kek(b-kek) = %+v, %v, %v; want %+v", got, ok, err, b)
		}
		if got, ok, err := k.Kek(ctx, "a-kek"); err != nil || !ok || !reflect.DeepEqual(got, a) {
			t.Errorf("Kek(a-kek) = %+v, %v, %v; want %+v", got, ok, err, a)
		}
		if _, ok, err := k.Kek(ctx, "none"); ok || err != nil {
			t.Errorf("Kek(none) = %v, %v; want not found, no error", ok, err)
		}
		if ks, err := k.Keks(ctx, false); err != nil || len(ks) != 1 || ks[0].Name != "b-kek" {
			t.Errorf("Keks(false) = %+v, %v; want b-kek", ks, err)
		}
		if ks, err := k.Keks(ctx, true); err != nil || len(ks) != 2 || ks[0].Name != "a-kek" || ks[1].Name != "b-kek" {
			t.Errorf("Keks(true) = %+v, %v; want a-kek, b-kek", ks, err)
		}
		if n, m, err := k.CountKeys(ctx); err != nil || n != 2 || m != 0 {
			t.Errorf("CountKeys = %d, %d, %v; want 2, 0", n, m, err)
		}
		return nil
	})
	b2 := b
	b2.Doc, b2.Shared, b2.KmsProps, b2.Deleted, b2.Ts = "", false, map[string]string{}, true, 2
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		if err := k.PutKek(ctx, b2); err != nil {
			return err
		}
		if err := k.DeleteKek(ctx, "a-kek"); err != nil {
			return err
		}
		return k.DeleteKek(ctx, "none")
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		if got, ok, err := k.Kek(ctx, "b-kek"); err != nil || !ok || !reflect.DeepEqual(got, b2) {
			t.Errorf("Kek(b-kek) after replace = %+v, %v, %v; want %+v", got, ok, err, b2)
		}
		if ks, err := k.Keks(ctx, true); err != nil || len(ks) != 1 {
			t.Errorf("Keks(true) after delete = %+v, %v; want b-kek only", ks, err)
		}
		if ks, err := k.Keks(ctx, false); err != nil || ks == nil || len(ks) != 0 {
			t.Errorf("Keks(false) = %#v, %v; want an empty slice", ks, err)
		}
		return nil
	})
}

// testDeks: DEKs are put and read back by ID, listed in (KEK, subject,
// algorithm, version) order (versions numerically) with each filter,
// replaced (material, ts, deleted), counted and deleted.
func testDeks(t *testing.T, s registry.Store) {
	mk := func(kek, subject string, alg dek.Algorithm, v int, deleted bool) dek.Dek {
		return dek.Dek{KekName: kek, Subject: subject, Algorithm: alg, Version: v,
			EncryptedKeyMaterial: fmt.Sprintf("bWF0ZXJpYWw%d=", v), Ts: int64(1000 + v), Deleted: deleted}
	}
	all := []dek.Dek{
		mk("k2", "orders-value", dek.AES256GCM, 1, false),
		mk("k1", "orders-value", dek.AES256GCM, 10, false),
		mk("k1", "orders-value", dek.AES256GCM, 2, true),
		mk("k1", "orders-value", dek.AES256GCM, 1, false),
		mk("k1", "orders-value", dek.AES128GCM, 1, false),
		mk("k1", "clicks-value", dek.AES256SIV, 1, false),
	}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		for _, d := range all {
			d.KeyMaterial = "never stored"
			if err := k.PutDek(ctx, d); err != nil {
				return err
			}
		}
		return nil
	})
	ids := func(ds []dek.Dek) string {
		out := ""
		for _, d := range ds {
			out += fmt.Sprintf("[%s %s %s %d]", d.KekName, d.Subject, d.Algorithm, d.Version)
		}
		return out
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		want := all[3]
		if got, ok, err := k.Dek(ctx, want.ID()); err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Dek(%v) = %+v, %v, %v; want %+v", want.ID(), got, ok, err, want)
		}
		if _, ok, err := k.Dek(ctx, dek.DekID{KekName: "k1", Subject: "orders-value", Algorithm: dek.AES256SIV, Version: 1}); ok || err != nil {
			t.Errorf("Dek(absent) = %v, %v; want not found, no error", ok, err)
		}
		for _, tc := range []struct {
			q    dek.DekQuery
			want string
		}{
			{dek.DekQuery{IncludeDeleted: true}, "[k1 clicks-value AES256_SIV 1][k1 orders-value AES128_GCM 1][k1 orders-value AES256_GCM 1][k1 orders-value AES256_GCM 2][k1 orders-value AES256_GCM 10][k2 orders-value AES256_GCM 1]"},
			{dek.DekQuery{}, "[k1 clicks-value AES256_SIV 1][k1 orders-value AES128_GCM 1][k1 orders-value AES256_GCM 1][k1 orders-value AES256_GCM 10][k2 orders-value AES256_GCM 1]"},
			{dek.DekQuery{KekName: "k1", Subject: "orders-value", Algorithm: dek.AES256GCM, IncludeDeleted: true}, "[k1 orders-value AES256_GCM 1][k1 orders-value AES256_GCM 2][k1 orders-value AES256_GCM 10]"},
			{dek.DekQuery{KekName: "k2"}, "[k2 orders-value AES256_GCM 1]"},
			{dek.DekQuery{Subject: "clicks-value"}, "[k1 clicks-value AES256_SIV 1]"},
			{dek.DekQuery{KekName: "none"}, ""},
		} {
			ds, err := k.Deks(ctx, tc.q)
			if err != nil || ids(ds) != tc.want || ds == nil {
				t.Errorf("Deks(%+v) = %s, %v; want %s", tc.q, ids(ds), err, tc.want)
			}
		}
		if n, m, err := k.CountKeys(ctx); err != nil || n != 0 || m != 6 {
			t.Errorf("CountKeys = %d, %d, %v; want 0, 6", n, m, err)
		}
		return nil
	})
	changed := all[2]
	changed.Deleted, changed.Ts, changed.EncryptedKeyMaterial = false, 99, "cmV3cmFwcGVk"
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		if err := k.PutDek(ctx, changed); err != nil {
			return err
		}
		if err := k.DeleteDek(ctx, all[0].ID()); err != nil {
			return err
		}
		return k.DeleteDek(ctx, dek.DekID{KekName: "none", Subject: "x", Algorithm: dek.AES256GCM, Version: 1})
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		k := keyTx(t, tx)
		if got, ok, err := k.Dek(ctx, changed.ID()); err != nil || !ok || !reflect.DeepEqual(got, changed) {
			t.Errorf("Dek after replace = %+v, %v, %v; want %+v", got, ok, err, changed)
		}
		if _, ok, err := k.Dek(ctx, all[0].ID()); ok || err != nil {
			t.Errorf("Dek after delete = %v, %v; want not found", ok, err)
		}
		return nil
	})
}

// testDekRollback: keys written in a failed Update are not stored.
func testDekRollback(t *testing.T, s registry.Store) {
	ctx := t.Context()
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx registry.Tx) error {
		k := keyTx(t, tx)
		if err := k.PutKek(ctx, dek.Kek{Name: "k", KmsType: "local-kms", KmsKeyID: "x"}); err != nil {
			return err
		}
		if err := k.PutDek(ctx, dek.Dek{KekName: "k", Subject: "s", Algorithm: dek.AES256GCM, Version: 1, EncryptedKeyMaterial: "eA=="}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if n, m, err := keyTx(t, tx).CountKeys(ctx); err != nil || n != 0 || m != 0 {
			t.Errorf("CountKeys after rollback = %d, %d, %v; want 0, 0", n, m, err)
		}
		return nil
	})
}
