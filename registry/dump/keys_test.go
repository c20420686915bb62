package dump_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/dump"
)

// TestDumpKeys: the DEK registry's keys survive Encode and Read, sorted;
// a dump without keys has no keks or deks member (the bytes a registry
// without keys wrote before they existed); Validate refuses a DEK whose
// KEK the dump lacks, an unknown algorithm, a version below 1, missing
// material and duplicates.
func TestDumpKeys(t *testing.T) {
	base := func() *dump.Dump {
		return &dump.Dump{Format: dump.Format,
			Keks: []dump.Kek{{Name: "k2", KmsType: "local-kms", KmsKeyID: "b", Ts: 2}, {Name: "k1", KmsType: "aws-kms", KmsKeyID: "arn:aws:kms:x", KmsProps: map[string]string{"a": "b"}, Shared: true, Ts: 1, Deleted: true}},
			Deks: []dump.Dek{
				{KekName: "k2", Subject: "s", Algorithm: "AES256_GCM", Version: 10, EncryptedKeyMaterial: "AQID", Ts: 3},
				{KekName: "k2", Subject: "s", Algorithm: "AES256_GCM", Version: 2, EncryptedKeyMaterial: "BAUG", Ts: 4, Deleted: true},
				{KekName: "k1", Subject: "s", Algorithm: "AES128_GCM", Version: 1, EncryptedKeyMaterial: "BwgJ", Ts: 5},
			}}
	}
	d := base()
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dump.Read(b)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if r.Keks[0].Name != "k1" || r.Deks[0].KekName != "k1" || r.Deks[1].Version != 2 || r.Deks[2].Version != 10 {
		t.Errorf("read keys %+v %+v, want KEKs by name and DEKs by KEK, subject, algorithm, version", r.Keks, r.Deks)
	}
	if b2, _ := r.Encode(); !bytes.Equal(b, b2) {
		t.Error("Read then Encode changes a dump with keys")
	}
	if n := r.Counts(); n.Keks != 2 || n.Deks != 3 {
		t.Errorf("counts %+v", n)
	}
	empty, _ := (&dump.Dump{Format: dump.Format}).Encode()
	if bytes.Contains(empty, []byte("keks")) || bytes.Contains(empty, []byte("deks")) {
		t.Errorf("a dump without keys encodes keks or deks:\n%s", empty)
	}
	for _, tc := range []struct {
		name   string
		break_ func(*dump.Dump)
		want   string
	}{
		{"dek without its kek", func(d *dump.Dump) { d.Deks[0].KekName = "k9" }, "does not hold"},
		{"algorithm", func(d *dump.Dump) { d.Deks[0].Algorithm = "DES" }, "algorithm"},
		{"version", func(d *dump.Dump) { d.Deks[0].Version = 0 }, "positive version"},
		{"material", func(d *dump.Dump) { d.Deks[0].EncryptedKeyMaterial = "" }, "encryptedKeyMaterial"},
		{"duplicate dek", func(d *dump.Dump) { d.Deks[1] = d.Deks[0] }, "twice"},
		{"duplicate kek", func(d *dump.Dump) { d.Keks[1].Name = "k2" }, "twice"},
		{"kek without kms", func(d *dump.Dump) { d.Keks[0].KmsKeyID = "" }, "kmsKeyId"},
	} {
		d := base()
		tc.break_(d)
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}
