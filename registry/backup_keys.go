package registry

import (
	"context"
	"fmt"
	"maps"

	"github.com/charter-dev/charter/registry/dek"
	"github.com/charter-dev/charter/registry/dump"
)

// The DEK registry's part of a lossless export and import: every KEK and
// DEK version, soft-deleted ones included, with their times; DEKs as
// stored, wrapped by their KEK (a dump holds no key material in the
// clear).

// exportKeys adds the store's keys to d. A store whose transactions do
// not implement dek.KeyTx holds no keys.
func exportKeys(ctx context.Context, tx Tx, d *dump.Dump) error {
	k, ok := tx.(dek.KeyTx)
	if !ok {
		return nil
	}
	keks, err := k.Keks(ctx, true)
	if err != nil {
		return fmt.Errorf("export keks: %w", err)
	}
	for _, x := range keks {
		d.Keks = append(d.Keks, dumpKek(x))
	}
	deks, err := k.Deks(ctx, dek.DekQuery{IncludeDeleted: true})
	if err != nil {
		return fmt.Errorf("export deks: %w", err)
	}
	for _, x := range deks {
		d.Deks = append(d.Deks, dump.Dek{KekName: x.KekName, Subject: x.Subject, Algorithm: string(x.Algorithm),
			Version: x.Version, EncryptedKeyMaterial: x.EncryptedKeyMaterial, Ts: x.Ts, Deleted: x.Deleted})
	}
	return nil
}

func dumpKek(k dek.Kek) dump.Kek {
	props := maps.Clone(k.KmsProps)
	if len(props) == 0 {
		props = nil
	}
	return dump.Kek{Name: k.Name, KmsType: k.KmsType, KmsKeyID: k.KmsKeyID, KmsProps: props, Doc: k.Doc,
		Shared: k.Shared, Ts: k.Ts, Deleted: k.Deleted}
}

func fromDumpKek(k dump.Kek) dek.Kek {
	props := maps.Clone(k.KmsProps)
	if props == nil {
		props = map[string]string{}
	}
	return dek.Kek{Name: k.Name, KmsType: k.KmsType, KmsKeyID: k.KmsKeyID, KmsProps: props, Doc: k.Doc,
		Shared: k.Shared, Ts: k.Ts, Deleted: k.Deleted}
}

// countKeys returns how many KEKs and DEKs the store holds (none when its
// transactions do not implement dek.KeyTx).
func countKeys(ctx context.Context, tx Tx) (int, int, error) {
	k, ok := tx.(dek.KeyTx)
	if !ok {
		return 0, 0, nil
	}
	return k.CountKeys(ctx)
}

// planKeys decides each key of the dump: kept when the registry holds it
// alike (its time and soft delete included), a conflict when it holds it
// otherwise, added when it lacks it.
func (p *importPlan) planKeys(ctx context.Context, tx Tx, d *dump.Dump) error {
	if len(d.Keks) == 0 && len(d.Deks) == 0 {
		return nil
	}
	k, err := keyTx(tx)
	if err != nil {
		return err
	}
	for _, dk := range d.Keks {
		want := fromDumpKek(dk)
		have, ok, err := k.Kek(ctx, dk.Name)
		switch {
		case err != nil:
			return fmt.Errorf("plan kek %q: %w", dk.Name, err)
		case !ok:
			p.keks = append(p.keks, want)
			p.report.Added.Keks++
		case dumpKekEqual(dumpKek(have), dk):
			p.report.Kept.Keks++
		default:
			p.conflict("KEK %q: the registry holds another one", dk.Name)
		}
	}
	for _, dd := range d.Deks {
		want := dek.Dek{KekName: dd.KekName, Subject: dd.Subject, Algorithm: dek.Algorithm(dd.Algorithm), Version: dd.Version,
			EncryptedKeyMaterial: dd.EncryptedKeyMaterial, Ts: dd.Ts, Deleted: dd.Deleted}
		have, ok, err := k.Dek(ctx, want.ID())
		switch {
		case err != nil:
			return fmt.Errorf("plan dek %q of %q: %w", dd.Subject, dd.KekName, err)
		case !ok:
			p.deks = append(p.deks, want)
			p.report.Added.Deks++
		case have == want:
			p.report.Kept.Deks++
		default:
			p.conflict("subject %q: the DEK of KEK %q (%s) version %d: the registry holds another one", dd.Subject, dd.KekName, dd.Algorithm, dd.Version)
		}
	}
	return nil
}

func dumpKekEqual(a, b dump.Kek) bool {
	return a.Name == b.Name && a.KmsType == b.KmsType && a.KmsKeyID == b.KmsKeyID && maps.Equal(a.KmsProps, b.KmsProps) &&
		a.Doc == b.Doc && a.Shared == b.Shared && a.Ts == b.Ts && a.Deleted == b.Deleted
}

// applyKeys writes the keys p adds.
func (p *importPlan) applyKeys(ctx context.Context, tx Tx) error {
	if len(p.keks) == 0 && len(p.deks) == 0 {
		return nil
	}
	k, err := keyTx(tx)
	if err != nil {
		return err
	}
	for _, x := range p.keks {
		if err := k.PutKek(ctx, x); err != nil {
			return fmt.Errorf("import kek %q: %w", x.Name, err)
		}
	}
	for _, x := range p.deks {
		if err := k.PutDek(ctx, x); err != nil {
			return fmt.Errorf("import dek %q of %q: %w", x.Subject, x.KekName, err)
		}
	}
	return nil
}
