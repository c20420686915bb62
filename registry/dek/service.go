package dek

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/charter-dev/charter/registry/srerr"
)

// Service is the DEK registry over a Store. Its errors are srerr errors
// with Confluent's DEK registry codes; anything else is a store failure.
type Service struct {
	store Store
	now   func() time.Time
	// maxKeys is MaxKeys; tests lower it.
	maxKeys int
}

// New returns the DEK registry over store; now is its clock (nil:
// time.Now).
func New(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now, maxKeys: MaxKeys}
}

// NameMaxLength is the longest KEK name (Confluent's NAME_MAX_LENGTH).
const NameMaxLength = 256

func invalid(field string) error {
	return srerr.New(srerr.ErrInvalidKey, "Invalid or missing value for field '%s' of key", field)
}

func notFound(name string) error {
	return srerr.New(srerr.ErrKeyNotFound, "Key '%s' not found", name)
}

func exists(name string) error {
	return srerr.New(srerr.ErrKeyAlreadyExists, "Key '%s' already exists; use a different value", name)
}

func notSoftDeleted(name string) error {
	return srerr.New(srerr.ErrKeyNotSoftDeleted, "Key '%s' was not deleted first before being permanently deleted", name)
}

// CheckName validates a KEK name as Confluent's checkName: 1 to 256
// characters, a letter or '_' first, then letters, digits, '_' or '-'.
// Errors: 42271.
func CheckName(name string) error {
	if name == "" || len([]rune(name)) > NameMaxLength {
		return invalid("name")
	}
	for i, c := range name {
		ok := unicode.IsLetter(c) || c == '_' || (i > 0 && (unicode.IsDigit(c) || c == '-'))
		if !ok {
			return invalid("name")
		}
	}
	return nil
}

// CheckSubject validates a DEK's subject as Confluent's checkSubject: not
// empty, no control characters. Errors: 42271.
func CheckSubject(subject string) error {
	if subject == "" || strings.ContainsFunc(subject, unicode.IsControl) {
		return invalid("subject")
	}
	return nil
}

// ParseAlgorithm reads an algorithm query parameter: "" is none (the
// default applies). Errors: 42271.
func ParseAlgorithm(s string) (Algorithm, error) {
	if s == "" {
		return "", nil
	}
	a := Algorithm(s)
	if !ValidAlgorithm(a) {
		return "", invalid("algorithm")
	}
	return a, nil
}

// ParseVersion reads a DEK version path segment as Confluent's VersionId:
// "latest" or -1 is LatestVersion, else a number from 1. Errors: 42202.
func ParseVersion(s string) (int, error) {
	if s == "latest" {
		return LatestVersion, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || (v < 1 && v != LatestVersion) || v > math.MaxInt32 {
		return 0, srerr.New(srerr.ErrInvalidVersion,
			"The specified version '%s' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", s)
	}
	return v, nil
}

// normalizeKmsType names the cloud KMS types as Confluent does: any type
// starting with aws, azure or gcp (any case) becomes aws-kms, azure-kms
// or gcp-kms.
func normalizeKmsType(t string) string {
	l := strings.ToLower(t)
	switch {
	case strings.HasPrefix(l, "aws"):
		return "aws-kms"
	case strings.HasPrefix(l, "azure"):
		return "azure-kms"
	case strings.HasPrefix(l, "gcp"):
		return "gcp-kms"
	}
	return t
}

// checkKmsKeyID is Confluent's CreateKekRequest.validate: the key ID's
// form for the cloud KMS types and HashiCorp Vault.
func checkKmsKeyID(kmsType, id string) bool {
	switch kmsType {
	case "aws-kms":
		return strings.HasPrefix(id, "arn:aws:kms:")
	case "azure-kms":
		return strings.HasPrefix(id, "https://")
	case "gcp-kms":
		return strings.HasPrefix(id, "projects/")
	case "hcvault":
		return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
	}
	return true
}

func (s *Service) ts() int64 { return s.now().UnixMilli() }

func (s *Service) view(ctx context.Context, fn func(KeyTx) error) error {
	return s.store.View(ctx, fn)
}

// liveKek returns the KEK name, a soft-deleted one only with deleted;
// else 40470.
func liveKek(ctx context.Context, tx KeyTx, name string, deleted bool) (Kek, error) {
	k, ok, err := tx.Kek(ctx, name)
	if err != nil {
		return Kek{}, fmt.Errorf("read kek %q: %w", name, err)
	}
	if !ok || (k.Deleted && !deleted) {
		return Kek{}, notFound(name)
	}
	return k, nil
}

// --- KEKs ----------------------------------------------------------------

// KekNames lists the KEK names (GET /dek-registry/v1/keks), soft-deleted
// ones with deleted; with subject prefixes, the names of the KEKs that
// hold a DEK of a subject starting with one of them (Confluent's
// getKekNames), sorted and distinct.
func (s *Service) KekNames(ctx context.Context, subjectPrefixes []string, deleted bool) ([]string, error) {
	var out []string
	err := s.view(ctx, func(tx KeyTx) error {
		out = []string{}
		if len(subjectPrefixes) == 0 {
			ks, err := tx.Keks(ctx, deleted)
			if err != nil {
				return fmt.Errorf("list keks: %w", err)
			}
			for _, k := range ks {
				out = append(out, k.Name)
			}
			return nil
		}
		ds, err := tx.Deks(ctx, DekQuery{IncludeDeleted: deleted})
		if err != nil {
			return fmt.Errorf("list deks: %w", err)
		}
		for _, d := range ds {
			if slices.ContainsFunc(subjectPrefixes, func(p string) bool { return strings.HasPrefix(d.Subject, p) }) {
				out = append(out, d.KekName)
			}
		}
		slices.Sort(out)
		out = slices.Compact(out)
		return nil
	})
	return out, err
}

// Kek returns the KEK name (GET /dek-registry/v1/keks/{name}), a
// soft-deleted one only with deleted. Errors: 40470, 42271.
func (s *Service) Kek(ctx context.Context, name string, deleted bool) (Kek, error) {
	if err := CheckName(name); err != nil {
		return Kek{}, err
	}
	var out Kek
	err := s.view(ctx, func(tx KeyTx) error {
		var err error
		out, err = liveKek(ctx, tx, name, deleted)
		return err
	})
	return out, err
}

// CreateKekRequest is the body of POST /dek-registry/v1/keks.
type CreateKekRequest struct {
	Name     string            `json:"name"`
	KmsType  string            `json:"kmsType"`
	KmsKeyID string            `json:"kmsKeyId"`
	KmsProps map[string]string `json:"kmsProps"`
	Doc      string            `json:"doc"`
	Shared   bool              `json:"shared"`
	Deleted  bool              `json:"deleted"`
}

// CreateKek creates a KEK (Confluent's createKek): 40971 when one of that
// name exists, unless it is soft-deleted and the request is the same key,
// which undeletes it; 40972 past MaxKeys; 42271 for a bad name, a missing
// kmsKeyId or kmsType, or a key ID of the wrong form for its KMS.
func (s *Service) CreateKek(ctx context.Context, r CreateKekRequest) (Kek, error) {
	if err := CheckName(r.Name); err != nil {
		return Kek{}, err
	}
	if r.KmsKeyID == "" {
		return Kek{}, invalid("kmsKeyId")
	}
	if r.KmsType == "" {
		return Kek{}, invalid("kmsType")
	}
	if !checkKmsKeyID(r.KmsType, r.KmsKeyID) {
		return Kek{}, invalid("kmsKeyId")
	}
	var out Kek
	err := s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		keks, _, err := tx.CountKeys(ctx)
		if err != nil {
			return fmt.Errorf("count keys: %w", err)
		}
		k := Kek{Name: r.Name, KmsType: normalizeKmsType(r.KmsType), KmsKeyID: r.KmsKeyID,
			KmsProps: maps.Clone(r.KmsProps), Doc: r.Doc, Shared: r.Shared, Deleted: r.Deleted, Ts: s.ts()}
		if k.KmsProps == nil {
			k.KmsProps = map[string]string{}
		}
		old, ok, err := tx.Kek(ctx, r.Name)
		if err != nil {
			return fmt.Errorf("read kek %q: %w", r.Name, err)
		}
		if ok && (r.Deleted == old.Deleted || !old.equivalent(k)) {
			return exists(r.Name)
		}
		if !ok && keks >= s.maxKeys {
			return srerr.New(srerr.ErrTooManyKeys, "A maximum of %d keys already exist", s.maxKeys)
		}
		if err := tx.PutKek(ctx, k); err != nil {
			return fmt.Errorf("store kek %q: %w", r.Name, err)
		}
		out = k
		var before any
		if ok {
			before = auditKek(old)
		}
		return audit(ActionKekCreate, "", r.Name, before, auditKek(k))
	})
	return out, err
}

// UpdateKekRequest is the body of PUT /dek-registry/v1/keks/{name}: a nil
// field keeps the KEK's value. KmsProps present as JSON null clears the
// properties (KmsPropsNull).
type UpdateKekRequest struct {
	KmsProps     map[string]string
	KmsPropsNull bool
	Doc          *string
	Shared       *bool
}

// UpdateKek changes a KEK's kmsProps, doc and shared (Confluent's
// putKek); kmsType and kmsKeyId never change. A soft-deleted KEK is not
// found. Errors: 40470, 42271.
func (s *Service) UpdateKek(ctx context.Context, name string, r UpdateKekRequest) (Kek, error) {
	if err := CheckName(name); err != nil {
		return Kek{}, err
	}
	var out Kek
	err := s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		old, err := liveKek(ctx, tx, name, false)
		if err != nil {
			return err
		}
		k := old
		switch {
		case r.KmsPropsNull:
			k.KmsProps = map[string]string{}
		case r.KmsProps != nil:
			k.KmsProps = maps.Clone(r.KmsProps)
		}
		if r.Doc != nil {
			k.Doc = *r.Doc
		}
		if r.Shared != nil {
			k.Shared = *r.Shared
		}
		if k.equivalent(old) {
			out = old
			return nil
		}
		k.Ts = s.ts()
		if err := tx.PutKek(ctx, k); err != nil {
			return fmt.Errorf("store kek %q: %w", name, err)
		}
		out = k
		return audit(ActionKekUpdate, "", name, auditKek(old), auditKek(k))
	})
	return out, err
}

// DeleteKek soft-deletes a KEK, or with permanent removes a soft-deleted
// one (Confluent's deleteKek). A KEK that still has DEKs (live ones for a
// soft delete, any for a permanent one) is refused with 42272. Errors:
// 40470, 40471, 42271, 42272.
func (s *Service) DeleteKek(ctx context.Context, name string, permanent bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		old, err := liveKek(ctx, tx, name, true)
		if err != nil {
			return err
		}
		ds, err := tx.Deks(ctx, DekQuery{KekName: name, IncludeDeleted: permanent})
		if err != nil {
			return fmt.Errorf("list deks of %q: %w", name, err)
		}
		if len(ds) > 0 {
			return srerr.New(srerr.ErrKeyReferenceExists, "One or more references exist to the key '%s'", name)
		}
		if permanent {
			if !old.Deleted {
				return notSoftDeleted(name)
			}
			if err := tx.DeleteKek(ctx, name); err != nil {
				return fmt.Errorf("delete kek %q: %w", name, err)
			}
			return audit(ActionKekDelete, "", name, auditKek(old), nil)
		}
		if old.Deleted {
			return nil
		}
		k := old
		k.Deleted, k.Ts = true, s.ts()
		if err := tx.PutKek(ctx, k); err != nil {
			return fmt.Errorf("store kek %q: %w", name, err)
		}
		return audit(ActionKekDelete, "", name, auditKek(old), auditKek(k))
	})
}

// UndeleteKek undeletes a soft-deleted KEK (Confluent's undeleteKek); a
// live one is left as it is. Errors: 40470, 42271.
func (s *Service) UndeleteKek(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		old, err := liveKek(ctx, tx, name, true)
		if err != nil || !old.Deleted {
			return err
		}
		k := old
		k.Deleted, k.Ts = false, s.ts()
		if err := tx.PutKek(ctx, k); err != nil {
			return fmt.Errorf("store kek %q: %w", name, err)
		}
		return audit(ActionKekUndelete, "", name, auditKek(old), auditKek(k))
	})
}

// TestKek is POST /dek-registry/v1/keks/{name}/test: Confluent's server
// wraps a test DEK with the KMS of a shared KEK. Charter has no KMS
// access, so it answers 42271 for every KEK: "shared" for a non-shared
// one (as Confluent), and for a shared one a message saying that Charter
// cannot reach the KMS. Errors: 40470, 42271.
func (s *Service) TestKek(ctx context.Context, name string) (Kek, error) {
	k, err := s.Kek(ctx, name, false)
	if err != nil {
		return Kek{}, err
	}
	if !k.Shared {
		return Kek{}, invalid("shared")
	}
	return Kek{}, srerr.New(srerr.ErrInvalidKey,
		"Invalid or missing value for field 'shared' of key: Charter has no access to the KMS of KEK '%s' (%s), so it cannot test it", name, k.KmsType)
}

// --- DEKs ----------------------------------------------------------------

// DekSubjects lists the subjects that have DEKs under KEK kekName (GET
// .../keks/{name}/deks), sorted and distinct. Errors: 40470, 42271.
func (s *Service) DekSubjects(ctx context.Context, kekName string, deleted bool) ([]string, error) {
	if err := CheckName(kekName); err != nil {
		return nil, err
	}
	var out []string
	err := s.view(ctx, func(tx KeyTx) error {
		if _, err := liveKek(ctx, tx, kekName, deleted); err != nil {
			return err
		}
		ds, err := tx.Deks(ctx, DekQuery{KekName: kekName, IncludeDeleted: deleted})
		if err != nil {
			return fmt.Errorf("list deks of %q: %w", kekName, err)
		}
		out = []string{}
		for _, d := range ds {
			out = append(out, d.Subject)
		}
		slices.Sort(out)
		out = slices.Compact(out)
		return nil
	})
	return out, err
}

func algorithmOr(a Algorithm) Algorithm {
	if a == "" {
		return DefaultAlgorithm
	}
	return a
}

// DekVersions lists the versions of (kekName, subject, algorithm)
// ascending (GET .../deks/{subject}/versions). Errors: 40470, 42271.
func (s *Service) DekVersions(ctx context.Context, kekName, subject string, alg Algorithm, deleted bool) ([]int, error) {
	if err := checkDekPath(kekName, subject); err != nil {
		return nil, err
	}
	var out []int
	err := s.view(ctx, func(tx KeyTx) error {
		if _, err := liveKek(ctx, tx, kekName, deleted); err != nil {
			return err
		}
		ds, err := tx.Deks(ctx, DekQuery{KekName: kekName, Subject: subject, Algorithm: algorithmOr(alg), IncludeDeleted: deleted})
		if err != nil {
			return fmt.Errorf("list deks of %q: %w", kekName, err)
		}
		out = []int{}
		for _, d := range ds {
			out = append(out, d.Version)
		}
		return nil
	})
	return out, err
}

func checkDekPath(kekName, subject string) error {
	if err := CheckName(kekName); err != nil {
		return err
	}
	return CheckSubject(subject)
}

// dek returns one DEK version (LatestVersion: the largest), a
// soft-deleted one only with deleted; found false when there is none.
func dek(ctx context.Context, tx KeyTx, kekName, subject string, version int, alg Algorithm, deleted bool) (Dek, bool, error) {
	alg = algorithmOr(alg)
	if version == LatestVersion {
		ds, err := tx.Deks(ctx, DekQuery{KekName: kekName, Subject: subject, Algorithm: alg, IncludeDeleted: deleted})
		if err != nil || len(ds) == 0 {
			return Dek{}, false, err
		}
		return ds[len(ds)-1], true, nil
	}
	d, ok, err := tx.Dek(ctx, DekID{KekName: kekName, Subject: subject, Algorithm: alg, Version: version})
	if err != nil || !ok || (d.Deleted && !deleted) {
		return Dek{}, false, err
	}
	return d, true, nil
}

// Dek returns one DEK version (GET .../deks/{subject} for version 1, as
// Confluent's getDek; .../versions/{v}, LatestVersion for "latest"). A
// DEK of a soft-deleted KEK, or a soft-deleted DEK, is found only with
// deleted. Errors: 40470, 42271.
func (s *Service) Dek(ctx context.Context, kekName, subject string, version int, alg Algorithm, deleted bool) (Dek, error) {
	if err := checkDekPath(kekName, subject); err != nil {
		return Dek{}, err
	}
	var out Dek
	err := s.view(ctx, func(tx KeyTx) error {
		if _, err := liveKek(ctx, tx, kekName, deleted); err != nil {
			return err
		}
		d, ok, err := dek(ctx, tx, kekName, subject, version, alg, deleted)
		if err != nil {
			return fmt.Errorf("read dek %q of %q: %w", subject, kekName, err)
		}
		if !ok {
			return notFound(subject)
		}
		out = d
		return nil
	})
	return out, err
}

// CreateDekRequest is the body of POST .../keks/{name}/deks[/{subject}].
// Version 0 is version 1, Algorithm "" AES256_GCM.
type CreateDekRequest struct {
	Subject              string    `json:"subject"`
	Version              int       `json:"version"`
	Algorithm            Algorithm `json:"algorithm"`
	EncryptedKeyMaterial string    `json:"encryptedKeyMaterial"`
	Deleted              bool      `json:"deleted"`
}

// CreateDek stores a DEK version under KEK kekName (Confluent's
// createDek): 40971 when that version exists, unless it is soft-deleted
// and the request is the same key, which undeletes it (with rewrap, an
// existing version's encryptedKeyMaterial is replaced: a KMS holder
// rewrapped it). encryptedKeyMaterial is required (42271 naming it); for
// a shared KEK, whose material Confluent's server would generate with the
// KMS, the message says that Charter cannot and the client must send it.
// Errors: 40470 (no such KEK; a soft-deleted one counts only when the
// request is marked deleted), 40971, 40972, 42271.
func (s *Service) CreateDek(ctx context.Context, kekName string, r CreateDekRequest, rewrap bool) (Dek, error) {
	if err := checkDekPath(kekName, r.Subject); err != nil {
		return Dek{}, err
	}
	if r.Algorithm != "" && !ValidAlgorithm(r.Algorithm) {
		return Dek{}, invalid("algorithm")
	}
	if r.Version < 0 || r.Version > math.MaxInt32 {
		// Confluent's CreateDekRequest.version is a Java Integer.
		return Dek{}, invalid("version")
	}
	if r.EncryptedKeyMaterial != "" {
		if _, err := base64.StdEncoding.DecodeString(r.EncryptedKeyMaterial); err != nil {
			return Dek{}, invalid("encryptedKeyMaterial")
		}
	}
	d := Dek{KekName: kekName, Subject: r.Subject, Version: max(r.Version, 1), Algorithm: algorithmOr(r.Algorithm),
		EncryptedKeyMaterial: r.EncryptedKeyMaterial, Deleted: r.Deleted, Ts: s.ts()}
	var out Dek
	err := s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		kek, err := liveKek(ctx, tx, kekName, r.Deleted)
		if err != nil {
			return err
		}
		old, ok, err := tx.Dek(ctx, d.ID())
		if err != nil {
			return fmt.Errorf("read dek %q of %q: %w", r.Subject, kekName, err)
		}
		if !rewrap && ok && (r.Deleted == old.Deleted || !old.equivalent(d)) {
			return exists(r.Subject)
		}
		if d.EncryptedKeyMaterial == "" {
			if kek.Shared {
				return srerr.New(srerr.ErrInvalidKey,
					"Invalid or missing value for field 'encryptedKeyMaterial' of key: KEK '%s' is shared, but Charter has no access to its KMS (%s) to generate the DEK; generate it on the client, wrap it with the KEK and send encryptedKeyMaterial (or use a KEK with shared false)",
					kekName, kek.KmsType)
			}
			return invalid("encryptedKeyMaterial")
		}
		if kek.Shared && ok && !rewrap {
			return exists(r.Subject)
		}
		if !ok {
			_, deks, err := tx.CountKeys(ctx)
			if err != nil {
				return fmt.Errorf("count keys: %w", err)
			}
			if deks >= s.maxKeys {
				return srerr.New(srerr.ErrTooManyKeys, "A maximum of %d keys already exist", s.maxKeys)
			}
		}
		if err := tx.PutDek(ctx, d); err != nil {
			return fmt.Errorf("store dek %q of %q: %w", r.Subject, kekName, err)
		}
		out = d
		var before any
		if ok {
			before = auditDek(old)
		}
		return audit(ActionDekCreate, r.Subject, dekTarget(d.ID()), before, auditDek(d))
	})
	return out, err
}

// auditKek is what the audit log keeps of a KEK: its kmsProps' names,
// not their values, which may be KMS credentials (the audit log is
// readable by every principal; GET .../keks/{name}, as Confluent's,
// answers them).
func auditKek(k Kek) Kek {
	props := make(map[string]string, len(k.KmsProps))
	for name := range k.KmsProps {
		props[name] = "(set)"
	}
	k.KmsProps = props
	return k
}

// auditDek is what the audit log keeps of a DEK: everything but the key
// material.
func auditDek(d Dek) Dek {
	d.EncryptedKeyMaterial, d.KeyMaterial = "", ""
	return d
}

func dekTarget(id DekID) string {
	return fmt.Sprintf("%s/%s/%d", id.KekName, id.Algorithm, id.Version)
}

// DeleteDeks soft-deletes every version of (kekName, subject, algorithm)
// or, with permanent, removes them once all are soft-deleted (Confluent's
// deleteDek: 40471 otherwise). The KEK may be soft-deleted. Errors:
// 40470, 40471, 42271.
func (s *Service) DeleteDeks(ctx context.Context, kekName, subject string, alg Algorithm, permanent bool) error {
	if err := checkDekPath(kekName, subject); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		if _, err := liveKek(ctx, tx, kekName, true); err != nil {
			return err
		}
		ds, err := tx.Deks(ctx, DekQuery{KekName: kekName, Subject: subject, Algorithm: algorithmOr(alg), IncludeDeleted: true})
		if err != nil {
			return fmt.Errorf("list deks of %q: %w", kekName, err)
		}
		if len(ds) == 0 {
			return notFound(subject)
		}
		for _, d := range ds {
			if permanent && !d.Deleted {
				return notSoftDeleted(subject)
			}
		}
		for _, d := range ds {
			if err := s.deleteOne(ctx, tx, audit, d, permanent); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Service) deleteOne(ctx context.Context, tx KeyTx, audit Audit, d Dek, permanent bool) error {
	if permanent {
		if err := tx.DeleteDek(ctx, d.ID()); err != nil {
			return fmt.Errorf("delete dek %q of %q: %w", d.Subject, d.KekName, err)
		}
		return audit(ActionDekDelete, d.Subject, dekTarget(d.ID()), auditDek(d), nil)
	}
	if d.Deleted {
		return nil
	}
	n := d
	n.Deleted, n.Ts = true, s.ts()
	if err := tx.PutDek(ctx, n); err != nil {
		return fmt.Errorf("store dek %q of %q: %w", d.Subject, d.KekName, err)
	}
	return audit(ActionDekDelete, d.Subject, dekTarget(d.ID()), auditDek(d), auditDek(n))
}

func (s *Service) undeleteOne(ctx context.Context, tx KeyTx, audit Audit, d Dek) error {
	if !d.Deleted {
		return nil
	}
	n := d
	n.Deleted, n.Ts = false, s.ts()
	if err := tx.PutDek(ctx, n); err != nil {
		return fmt.Errorf("store dek %q of %q: %w", d.Subject, d.KekName, err)
	}
	return audit(ActionDekUndelete, d.Subject, dekTarget(d.ID()), auditDek(d), auditDek(n))
}

// DeleteDekVersion soft-deletes one version, or with permanent removes it
// once soft-deleted (Confluent's deleteDekVersion; LatestVersion is the
// largest, soft-deleted ones included). Errors: 40470, 40471, 42271.
func (s *Service) DeleteDekVersion(ctx context.Context, kekName, subject string, version int, alg Algorithm, permanent bool) error {
	if err := checkDekPath(kekName, subject); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		if _, err := liveKek(ctx, tx, kekName, true); err != nil {
			return err
		}
		d, ok, err := dek(ctx, tx, kekName, subject, version, alg, true)
		if err != nil {
			return fmt.Errorf("read dek %q of %q: %w", subject, kekName, err)
		}
		if !ok {
			return notFound(subject)
		}
		if permanent && !d.Deleted {
			return notSoftDeleted(subject)
		}
		return s.deleteOne(ctx, tx, audit, d, permanent)
	})
}

// UndeleteDeks undeletes every soft-deleted version of (kekName, subject,
// algorithm) (Confluent's undeleteDek); a soft-deleted KEK must be
// undeleted first (40472). Errors: 40470, 40472, 42271.
func (s *Service) UndeleteDeks(ctx context.Context, kekName, subject string, alg Algorithm) error {
	if err := checkDekPath(kekName, subject); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		kek, err := liveKek(ctx, tx, kekName, true)
		if err != nil {
			return err
		}
		ds, err := tx.Deks(ctx, DekQuery{KekName: kekName, Subject: subject, Algorithm: algorithmOr(alg), IncludeDeleted: true})
		if err != nil {
			return fmt.Errorf("list deks of %q: %w", kekName, err)
		}
		if len(ds) == 0 {
			return notFound(subject)
		}
		if kek.Deleted {
			return srerr.New(srerr.ErrKeySoftDeleted, "Key '%s' must be undeleted first", kekName)
		}
		for _, d := range ds {
			if err := s.undeleteOne(ctx, tx, audit, d); err != nil {
				return err
			}
		}
		return nil
	})
}

// UndeleteDekVersion undeletes one soft-deleted version (Confluent's
// undeleteDekVersion). Errors: 40470, 40472, 42271.
func (s *Service) UndeleteDekVersion(ctx context.Context, kekName, subject string, version int, alg Algorithm) error {
	if err := checkDekPath(kekName, subject); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx KeyTx, audit Audit) error {
		kek, err := liveKek(ctx, tx, kekName, true)
		if err != nil {
			return err
		}
		d, ok, err := dek(ctx, tx, kekName, subject, version, alg, true)
		if err != nil {
			return fmt.Errorf("read dek %q of %q: %w", subject, kekName, err)
		}
		if !ok {
			return notFound(subject)
		}
		if kek.Deleted {
			return srerr.New(srerr.ErrKeySoftDeleted, "Key '%s' must be undeleted first", kekName)
		}
		return s.undeleteOne(ctx, tx, audit, d)
	})
}
