// Package pii finds personal data in schemas and applies PII policy to new
// schema versions (Charter issue 4, §5). It works on the format-neutral
// fields of package compat ([compat.Fields]), so it serves Avro, Protobuf
// and JSON Schema alike, and it is pure: no I/O, no clock, no storage.
//
// # Tags
//
// A field's effective tags are its inline tags (Avro and JSON Schema
// "confluent:tags", Protobuf (confluent.field_meta).tags, as each format's
// Fields reads them) united with the tags of every Confluent metadata.tags
// glob that matches the field ([EffectiveTags], [TagResolver]). Globs are
// matched as Confluent's data-contract executors match them
// ([MatchGlob]): against the field's full name, not against Charter's
// path. [ConfluentName] gives that name:
//
//	format    Charter path                    Confluent full name
//	Avro      .customer.contact.phone         shop.contact.Contact.phone   (declaring record + field)
//	Protobuf  .Order.customer.email           acme.common.Customer.email   (field descriptor)
//	JSON      .customer.addresses[].street    $.customer.addresses.street  ("$" + property names)
//
// so {"**.ssn": ["PII"]} tags every field named ssn, and
// {"com.acme.Customer.*": ["PII"]} every field of that record.
//
// # Detection
//
// A [Detector] flags fields whose names or docs look like personal data,
// with one [Pattern] per kind of data ([Patterns]: PII_EMAIL,
// PII_PHONE, PII_SSN …). Names are split into words across naming styles
// ([Tokens]) and matched word by word, so "tel" finds "home_tel" but not
// "hotel"; the field's type must be able to hold the data ([KindOf]: an
// email is never a boolean); names that describe personal data instead of
// holding it (email_verified, phone_count, is_email, ip_version) are
// ignored, and so are names on the allow-list ([DefaultAllowList],
// [WithAllowList]). Each [Match] names its pattern, a [Confidence] and a
// reason.
//
// # Policy
//
// [Evaluate] applies the policy rules ([Rules]) to a new version, given
// the previous version's fields, the new fields, metadata, ruleSet,
// [Config] and the subject's consumers, and returns [rule.Finding] values:
//
//   - PII_UNTAGGED: a new field that looks like personal data, or a field
//     that lost its PII tag, has no PII or SENSITIVE tag;
//   - PII_UNMASKED: a field with a tag the subject requires masked
//     (Config.MaskTags) has no masking marker: an ENCRYPT, ENCRYPT_PAYLOAD,
//     REDACT, MASK or TOKENIZE rule in the ruleSet whose tags cover it, a
//     "confluent:masking" property, or an ENCRYPTED/MASKED/REDACTED/TOKENIZED
//     tag;
//   - PII_NEW_FIELD_WITH_CONSUMERS: a new personal-data field on a subject
//     that the given consumers read.
//
// Every rule is a warning by default, so that a Confluent client that
// knows nothing of Charter's governance is never refused unless the
// operator raises a rule to error.
package pii
