// Package dek is Charter's DEK registry: the key-encryption keys (KEKs)
// and data-encryption keys (DEKs) that Confluent's client-side field
// encryption keeps in a schema registry under /dek-registry/v1, with the
// semantics of Confluent's dek-registry module (AbstractDekRegistry and
// DekRegistryResource in confluentinc/schema-registry).
//
// A KEK names a key in a KMS (kmsType, kmsKeyId, kmsProps); it never holds
// key material. A DEK belongs to a KEK and a subject, with an algorithm
// (AES128_GCM, AES256_GCM, AES256_SIV) and a version, and holds
// encryptedKeyMaterial: the DEK wrapped by the KEK, which only a holder
// of the KMS key can unwrap.
//
// Charter has no KMS access. For a non-shared KEK that is Confluent's
// behaviour too: the client generates the DEK, wraps it with its KMS and
// sends encryptedKeyMaterial. For a shared KEK, Confluent's server
// generates and wraps (or unwraps, answering keyMaterial) with the KMS
// itself; Charter cannot, so it stores a DEK of a shared KEK only when the
// client sends encryptedKeyMaterial, refuses one without it with 42271
// naming encryptedKeyMaterial and saying why, and never answers
// keyMaterial.
//
// The package depends on nothing of Charter's but srerr: stores implement
// [KeyTx], the registry adapts its store to [Store].
package dek

import (
	"context"
	"maps"
)

// Algorithm is a DEK's algorithm (Confluent's DekFormat).
type Algorithm string

// The algorithms Confluent's DekFormat has.
const (
	AES128GCM Algorithm = "AES128_GCM"
	AES256GCM Algorithm = "AES256_GCM"
	AES256SIV Algorithm = "AES256_SIV"
)

// DefaultAlgorithm is the algorithm of a request that names none.
const DefaultAlgorithm = AES256GCM

// Algorithms lists the algorithms, as Confluent's DekFormat declares them.
var Algorithms = []Algorithm{AES128GCM, AES256GCM, AES256SIV}

// ValidAlgorithm reports whether a is one of Algorithms.
func ValidAlgorithm(a Algorithm) bool {
	for _, b := range Algorithms {
		if a == b {
			return true
		}
	}
	return false
}

// LatestVersion asks for a subject's latest DEK version (Confluent's
// DekRegistryClient.LATEST_VERSION).
const LatestVersion = -1

// MaxKeys is the number of KEKs, and separately of DEKs, a registry holds
// at most (Confluent's dek.registry.max.keys default): a create past it
// answers 40972. It also bounds every list the API answers.
const MaxKeys = 20000

// Kek is a key-encryption key: a key in a KMS, by reference. Ts is the
// time of its last change in Unix milliseconds.
type Kek struct {
	Name     string            `json:"name"`
	KmsType  string            `json:"kmsType"`
	KmsKeyID string            `json:"kmsKeyId"`
	KmsProps map[string]string `json:"kmsProps"`
	Doc      string            `json:"doc,omitempty"`
	Shared   bool              `json:"shared"`
	Ts       int64             `json:"ts"`
	Deleted  bool              `json:"deleted"`
}

// equivalent reports whether k and o are the same key apart from Ts and
// Deleted (Confluent's KeyEncryptionKey.isEquivalent).
func (k Kek) equivalent(o Kek) bool {
	return k.Name == o.Name && k.KmsType == o.KmsType && k.KmsKeyID == o.KmsKeyID &&
		maps.Equal(k.KmsProps, o.KmsProps) && k.Doc == o.Doc && k.Shared == o.Shared
}

// DekID identifies one DEK version.
type DekID struct {
	KekName   string
	Subject   string
	Algorithm Algorithm
	Version   int
}

// Dek is one version of a data-encryption key. KeyMaterial, the raw key,
// is never stored; Charter never sets it (see the package doc).
type Dek struct {
	KekName              string    `json:"kekName"`
	Subject              string    `json:"subject"`
	Version              int       `json:"version"`
	Algorithm            Algorithm `json:"algorithm"`
	EncryptedKeyMaterial string    `json:"encryptedKeyMaterial,omitempty"`
	KeyMaterial          string    `json:"keyMaterial,omitempty"`
	Ts                   int64     `json:"ts"`
	Deleted              bool      `json:"deleted"`
}

// ID returns d's identity.
func (d Dek) ID() DekID {
	return DekID{KekName: d.KekName, Subject: d.Subject, Algorithm: d.Algorithm, Version: d.Version}
}

// equivalent reports whether d and o are the same key apart from Ts and
// Deleted (Confluent's DataEncryptionKey.isEquivalent).
func (d Dek) equivalent(o Dek) bool {
	return d.ID() == o.ID() && d.EncryptedKeyMaterial == o.EncryptedKeyMaterial
}

// DekQuery selects DEKs. Zero fields do not filter.
type DekQuery struct {
	KekName   string
	Subject   string
	Algorithm Algorithm
	// IncludeDeleted also returns soft-deleted DEKs.
	IncludeDeleted bool
}

// KeyTx is the DEK registry's part of a store transaction: what a store
// implements (registry/sqlite, registry/postgres; registry/storetest
// checks it). Reads of an absent key answer false, never an error; every
// error is a store failure.
type KeyTx interface {
	// Kek returns the KEK name, soft-deleted or not.
	Kek(ctx context.Context, name string) (Kek, bool, error)
	// Keks returns the KEKs by name (byte order), soft-deleted ones only
	// with includeDeleted. No KEK is an empty slice.
	Keks(ctx context.Context, includeDeleted bool) ([]Kek, error)
	// PutKek inserts k, or replaces the KEK of its name. KmsProps nil and
	// empty are stored alike (read back as an empty map).
	PutKek(ctx context.Context, k Kek) error
	// DeleteKek removes the KEK name; absent, it does nothing.
	DeleteKek(ctx context.Context, name string) error
	// Dek returns one DEK version, soft-deleted or not.
	Dek(ctx context.Context, id DekID) (Dek, bool, error)
	// Deks returns the DEKs q selects, ordered by KEK name, subject,
	// algorithm (byte order), then version ascending.
	Deks(ctx context.Context, q DekQuery) ([]Dek, error)
	// PutDek inserts d, or replaces the DEK of its ID. d.KeyMaterial is
	// not stored.
	PutDek(ctx context.Context, d Dek) error
	// DeleteDek removes one DEK version; absent, it does nothing.
	DeleteDek(ctx context.Context, id DekID) error
	// CountKeys returns how many KEKs and DEKs are stored, soft-deleted
	// ones included.
	CountKeys(ctx context.Context) (keks, deks int, err error)
}

// Audit records one change in the registry's audit log, in the write's
// transaction: action, the subject changed ("" for a KEK), what changed
// within it, and the key before and after (nil: absent).
type Audit func(action, subject, target string, before, after any) error

// Store runs the DEK registry's transactions. Update's fn may run more
// than once (see registry.Store.Update): it starts from scratch each time.
type Store interface {
	View(ctx context.Context, fn func(KeyTx) error) error
	Update(ctx context.Context, fn func(KeyTx, Audit) error) error
}

// Audit actions of the DEK registry.
const (
	ActionKekCreate   = "kek.create"
	ActionKekUpdate   = "kek.update"
	ActionKekDelete   = "kek.delete"
	ActionKekUndelete = "kek.undelete"
	ActionDekCreate   = "dek.create"
	ActionDekDelete   = "dek.delete"
	ActionDekUndelete = "dek.undelete"
)
