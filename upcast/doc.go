// Package upcast reads events of any version of their schema as the
// version a replay job expects, without editing stored bytes and without
// `if version == 2` branches in the job.
//
// An Upcaster reads a subject's versions from the registry (WithRegistry,
// or any Source) and builds, for every version, the path of steps to the
// target version (the latest, or one set with WithTarget or
// WithTargetMetadata). A step is one of:
//
//   - implicit: where compat finds that the newer version can read the
//     older (compat.Check, BACKWARD), schema resolution does the work:
//     Avro reader/writer resolution (github.com/hamba/avro/v2, each version
//     with its own parsed schema and its own hamba config, whose codec
//     cache holds that schema's codecs only: hamba keys the cache by a
//     fingerprint that leaves out defaults, doc and aliases, so versions
//     differing only in a default never share an encoder or decoder),
//     JSON Schema "default" values, Protobuf
//     field numbers (unknown fields dropped). Runs of implicit steps are
//     done in one resolution when the last version can read the first, as
//     a Confluent consumer does;
//   - a migration rule: Confluent data-contract migrationRules (JSONata,
//     mode UPGRADE, DOWNGRADE or UPDOWN) of the newer version of the pair,
//     run with github.com/xiatechs/jsonata-go (the engine Confluent's Go
//     serde uses), in Confluent's order and with its onFailure actions, so
//     one migration is defined once for Confluent clients and replays;
//   - a hand-written Func registered in Steps for a real breaking change:
//     an upcaster (from < to) or a downcaster (from > to); a Func may also
//     jump several versions.
//
// Build finds, at start-up, every version without a path (a *GapError
// naming the versions and the incompatibilities that stop them), so a gap
// is not found on event 9,000,000. Plans are compiled once per (writer,
// target) pair; an event already at the target takes a fast path with no
// decode. UpcastInto fills a Result the caller keeps, for loops that do
// not want one allocation per event.
//
// # Values
//
// Steps work on the generic decoded form of the subject's format, a
// map[string]any:
//   - Avro: what hamba decodes into `any` (int → int, long → int64, float
//     → float32, bytes → []byte, decimal → *big.Rat, timestamps →
//     time.Time, records and maps → map[string]any, union values bare or
//     as {"full.Name": value});
//   - JSON Schema: what encoding/json decodes (numbers are float64);
//   - Protobuf: the protobuf JSON mapping with default values (fields by
//     JSON name, 64-bit integers as strings), as Confluent's Go serde gives
//     migration rules.
//
// Avro payloads are read by record decoders compiled on hamba's Reader,
// once per version and once per (writer, reader) pair that a leading
// implicit step resolves while decoding; they give the same values as
// hamba's generic decoding and resolution at about half the cost (fixed,
// local timestamps, unions with named, array or map branches, promotions
// to logical types and recursive records are left to hamba). A truncated
// payload is an error, never a partial value. Decoded strings and longs
// are boxed into slabs of 128 values (one allocation per slab, not per
// value), so a value kept after the event keeps its slab alive too.
//
// A step's output is checked against the target schema (WithValidation)
// by a check compiled once per version that accepts values already in
// the decoded form and hands the rest to a conformer, and values leaving
// a JSONata rule are conformed to their version (JSON numbers become Avro
// ints, unknown fields are dropped), as Confluent's serde does when it
// re-encodes them.
//
// # Events and failures
//
// An Event carries its writer version or schema ID, or a Confluent
// wire-format payload (magic byte 0, 4-byte big-endian schema ID, Protobuf
// message indexes as zig-zag varints). Envelopes (HeaderEnvelope,
// FieldEnvelope, CloudEvents) read type and version from headers or
// fields. Subjects of bare schema IDs are looked up once per ID however
// many goroutines ask.
//
// Every failure is an *Error with a Kind (ErrUnknownVersion,
// ErrMissingStep, ErrDecode, ErrStep, ErrInvalidOutput), the event's ID,
// writer version and the failing step; the Event itself is untouched, so
// it can be parked and re-driven. Replay runs a source through an
// Upcaster with bounded concurrency, in order per key, counting events,
// steps and failures. Verify is the dry run behind `charter upcast verify`.
//
// upcast imports no server, SQL driver or CLI package (a test guards its
// import graph).
package upcast
