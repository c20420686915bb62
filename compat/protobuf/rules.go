package protobuf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Rule IDs reported by CheckRead. Where Confluent Schema Registry's
// Protobuf differ names the change (its Difference.Type), the part after
// PROTO_ keeps that name; where buf names it (its breaking rule IDs), the
// part after PROTO_ keeps buf's. IDs never change once released.
const (
	// Confluent-named rules (ProfileRegistry).

	// RulePackageChanged: the files declare different packages (Confluent
	// PACKAGE_CHANGED, buf FILE_SAME_PACKAGE).
	RulePackageChanged = "PROTO_PACKAGE_CHANGED"
	// RuleMessageRemoved: a message of the writer file is not in the reader
	// file (Confluent MESSAGE_REMOVED).
	RuleMessageRemoved = "PROTO_MESSAGE_REMOVED"
	// RuleFieldKindChanged: a field changed between scalar (enums
	// included), message and map (Confluent FIELD_KIND_CHANGED).
	RuleFieldKindChanged = "PROTO_FIELD_KIND_CHANGED"
	// RuleFieldScalarKindChanged: a scalar field changed to a type outside
	// its group (Confluent FIELD_SCALAR_KIND_CHANGED).
	RuleFieldScalarKindChanged = "PROTO_FIELD_SCALAR_KIND_CHANGED"
	// RuleFieldNamedTypeChanged: a message field refers to a message of
	// another name (Confluent FIELD_NAMED_TYPE_CHANGED).
	RuleFieldNamedTypeChanged = "PROTO_FIELD_NAMED_TYPE_CHANGED"
	// RuleFieldNumericLabelChanged: a numeric or enum field changed between
	// singular and repeated (Confluent FIELD_NUMERIC_LABEL_CHANGED).
	RuleFieldNumericLabelChanged = "PROTO_FIELD_NUMERIC_LABEL_CHANGED"
	// RuleRequiredFieldAdded: the reader requires a field the writer does
	// not always write (Confluent REQUIRED_FIELD_ADDED).
	RuleRequiredFieldAdded = "PROTO_REQUIRED_FIELD_ADDED"
	// RuleRequiredFieldRemoved: the writer requires a field the reader does
	// not require (Confluent REQUIRED_FIELD_REMOVED).
	RuleRequiredFieldRemoved = "PROTO_REQUIRED_FIELD_REMOVED"
	// RuleFieldMovedToExistingOneof: a reader oneof holds fields the writer
	// can set together, one of them from a writer oneof (Confluent
	// FIELD_MOVED_TO_EXISTING_ONEOF).
	RuleFieldMovedToExistingOneof = "PROTO_FIELD_MOVED_TO_EXISTING_ONEOF"
	// RuleMultipleFieldsMovedToOneof: a reader oneof holds several fields
	// that are plain fields in the writer (Confluent
	// MULTIPLE_FIELDS_MOVED_TO_ONEOF).
	RuleMultipleFieldsMovedToOneof = "PROTO_MULTIPLE_FIELDS_MOVED_TO_ONEOF"
	// RuleOneofFieldRemoved: a member of a writer oneof is gone from the
	// reader while other members remain (Confluent ONEOF_FIELD_REMOVED).
	RuleOneofFieldRemoved = "PROTO_ONEOF_FIELD_REMOVED"

	// JSON mapping rules (ProfileRegistryJSON, ProfileWireJSON).

	// RuleFieldNameChanged: a field number has another name (buf
	// FIELD_SAME_NAME; Confluent FIELD_NAME_CHANGED, which it allows).
	RuleFieldNameChanged = "PROTO_FIELD_NAME_CHANGED"
	// RuleFieldJSONNameChanged: a field's JSON name changed (buf
	// FIELD_SAME_JSON_NAME).
	RuleFieldJSONNameChanged = "PROTO_FIELD_JSON_NAME_CHANGED"
	// RuleEnumValueNameChanged: an enum number has a reader name the writer
	// does not use (buf ENUM_VALUE_SAME_NAME; Confluent ENUM_CONST_CHANGED,
	// which it allows).
	RuleEnumValueNameChanged = "PROTO_ENUM_VALUE_NAME_CHANGED"

	// buf-named rules (ProfileWire, ProfileWireJSON).

	// RuleFieldWireCompatibleType: buf FIELD_WIRE_COMPATIBLE_TYPE.
	RuleFieldWireCompatibleType = "PROTO_FIELD_WIRE_COMPATIBLE_TYPE"
	// RuleFieldWireJSONCompatibleType: buf FIELD_WIRE_JSON_COMPATIBLE_TYPE.
	RuleFieldWireJSONCompatibleType = "PROTO_FIELD_WIRE_JSON_COMPATIBLE_TYPE"
	// RuleFieldWireCompatibleCardinality: buf
	// FIELD_WIRE_COMPATIBLE_CARDINALITY.
	RuleFieldWireCompatibleCardinality = "PROTO_FIELD_WIRE_COMPATIBLE_CARDINALITY"
	// RuleFieldWireJSONCompatibleCardinality: buf
	// FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY.
	RuleFieldWireJSONCompatibleCardinality = "PROTO_FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY"
	// RuleFieldSameOneof: buf FIELD_SAME_ONEOF.
	RuleFieldSameOneof = "PROTO_FIELD_SAME_ONEOF"
	// RuleFieldSameDefault: buf FIELD_SAME_DEFAULT.
	RuleFieldSameDefault = "PROTO_FIELD_SAME_DEFAULT"
	// RuleFieldNoDeleteUnlessNumberReserved: buf
	// FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED.
	RuleFieldNoDeleteUnlessNumberReserved = "PROTO_FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED"
	// RuleFieldNoDeleteUnlessNameReserved: buf
	// FIELD_NO_DELETE_UNLESS_NAME_RESERVED.
	RuleFieldNoDeleteUnlessNameReserved = "PROTO_FIELD_NO_DELETE_UNLESS_NAME_RESERVED"
	// RuleEnumValueNoDeleteUnlessNumberReserved: buf
	// ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED.
	RuleEnumValueNoDeleteUnlessNumberReserved = "PROTO_ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED"
	// RuleEnumValueNoDeleteUnlessNameReserved: buf
	// ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED.
	RuleEnumValueNoDeleteUnlessNameReserved = "PROTO_ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED"
	// RuleReservedMessageNoDelete: buf RESERVED_MESSAGE_NO_DELETE.
	RuleReservedMessageNoDelete = "PROTO_RESERVED_MESSAGE_NO_DELETE"
	// RuleReservedEnumNoDelete: buf RESERVED_ENUM_NO_DELETE.
	RuleReservedEnumNoDelete = "PROTO_RESERVED_ENUM_NO_DELETE"
	// RuleMessageSameJSONFormat: buf MESSAGE_SAME_JSON_FORMAT.
	RuleMessageSameJSONFormat = "PROTO_MESSAGE_SAME_JSON_FORMAT"
	// RuleEnumSameJSONFormat: buf ENUM_SAME_JSON_FORMAT.
	RuleEnumSameJSONFormat = "PROTO_ENUM_SAME_JSON_FORMAT"
)

// Profile selects the rules Format.CheckRead applies.
type Profile string

// The rule profiles. See the package documentation for when to use which.
const (
	// ProfileRegistry gives Confluent Schema Registry's verdicts: a new
	// version that Confluent accepts is accepted, and the reverse, except
	// that required-label changes are also reported.
	ProfileRegistry Profile = ""
	// ProfileRegistryJSON is ProfileRegistry plus the JSON-mapping rules
	// (field names, JSON names, enum value names), for subjects whose data
	// is also exchanged as protobuf JSON.
	ProfileRegistryJSON Profile = "REGISTRY_JSON"
	// ProfileWire reproduces buf's WIRE category. Its rules compare a
	// previous version (the writer) with the next one (the reader); at
	// FORWARD levels they read the versions the other way round, so that
	// an added field counts as a deleted one.
	ProfileWire Profile = "WIRE"
	// ProfileWireJSON reproduces buf's WIRE_JSON category, with the same
	// caveat as ProfileWire.
	ProfileWireJSON Profile = "WIRE_JSON"
)

var registryRules = []string{
	RulePackageChanged, RuleMessageRemoved, RuleFieldKindChanged, RuleFieldScalarKindChanged,
	RuleFieldNamedTypeChanged, RuleFieldNumericLabelChanged, RuleRequiredFieldAdded,
	RuleRequiredFieldRemoved, RuleFieldMovedToExistingOneof, RuleMultipleFieldsMovedToOneof,
	RuleOneofFieldRemoved,
}

var jsonRules = []string{RuleFieldNameChanged, RuleFieldJSONNameChanged, RuleEnumValueNameChanged}

// wireRules is buf v1.75's WIRE category (configuration v2) without the
// RPC rules, which do not concern message data.
var wireRules = []string{
	RulePackageChanged, RuleRequiredFieldAdded, RuleRequiredFieldRemoved, RuleFieldSameOneof,
	RuleFieldSameDefault, RuleReservedMessageNoDelete, RuleReservedEnumNoDelete,
	RuleEnumValueNoDeleteUnlessNumberReserved, RuleFieldNoDeleteUnlessNumberReserved,
	RuleFieldWireCompatibleCardinality, RuleFieldWireCompatibleType,
}

// wireJSONRules is buf v1.75's WIRE_JSON category (configuration v2)
// without the RPC rules.
var wireJSONRules = []string{
	RulePackageChanged, RuleRequiredFieldAdded, RuleRequiredFieldRemoved, RuleFieldSameOneof,
	RuleFieldSameDefault, RuleReservedMessageNoDelete, RuleReservedEnumNoDelete,
	RuleEnumValueNoDeleteUnlessNumberReserved, RuleFieldNoDeleteUnlessNumberReserved,
	RuleEnumValueNoDeleteUnlessNameReserved, RuleFieldNoDeleteUnlessNameReserved,
	RuleFieldWireJSONCompatibleCardinality, RuleFieldWireJSONCompatibleType,
	RuleEnumSameJSONFormat, RuleMessageSameJSONFormat, RuleEnumValueNameChanged,
	RuleFieldJSONNameChanged, RuleFieldNameChanged,
}

// ruleSet is the set of rule IDs a check runs.
type ruleSet map[string]bool

func newRuleSet(ids ...[]string) ruleSet {
	s := ruleSet{}
	for _, l := range ids {
		for _, id := range l {
			s[id] = true
		}
	}
	return s
}

var profiles = map[Profile]ruleSet{
	ProfileRegistry:     newRuleSet(registryRules),
	ProfileRegistryJSON: newRuleSet(registryRules, jsonRules),
	ProfileWire:         newRuleSet(wireRules),
	ProfileWireJSON:     newRuleSet(wireJSONRules),
}

// ProfileRules returns the IDs of the rules a profile applies, or nil for
// an unknown profile.
func ProfileRules(p Profile) []string {
	var out []string
	for _, r := range rules {
		if profiles[p][r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

// named are the profiles a subject selects by name (governance policy
// protobufProfile, charter.yaml protobuf_profile), the default first.
// ProfileRegistryJSON is not among them: its rules are all in WIRE_JSON.
var named = []struct {
	name    string
	profile Profile
}{
	{"CONFLUENT", ProfileRegistry},
	{"WIRE", ProfileWire},
	{"WIRE_JSON", ProfileWireJSON},
}

// ProfileNames returns the names a subject selects a profile by:
// CONFLUENT (the default, [ProfileRegistry]), WIRE and WIRE_JSON.
func ProfileNames() []string {
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.name
	}
	return out
}

// ProfileByName returns the profile of a name of [ProfileNames], in any
// case; "" is CONFLUENT. The error lists the valid names.
func ProfileByName(name string) (Profile, error) {
	if name == "" {
		return ProfileRegistry, nil
	}
	for _, n := range named {
		if strings.EqualFold(n.name, name) {
			return n.profile, nil
		}
	}
	return "", fmt.Errorf("unknown Protobuf profile %q: want %s", name, strings.Join(ProfileNames(), ", "))
}

const (
	srcConfluent = "Confluent Schema Registry, Protobuf SchemaDiff (protobuf-provider, io.confluent.kafka.schemaregistry.protobuf.diff): "
	srcEncoding  = `Protocol Buffers docs, "Encoding" (wire types) and "Updating A Message Type"`
	srcJSON      = `Protocol Buffers docs, "ProtoJSON Format"`
	srcBuf       = "buf v1.75 breaking rule "
)

// Rules returns Charter's table of Protobuf rules, each with the names of
// the profiles that run it (see [ProfileNames]).
func Rules() []rule.Rule {
	out := slices.Clone(rules)
	for i := range out {
		for _, n := range named {
			if profiles[n.profile][out[i].ID] {
				out[i].Profiles = append(out[i].Profiles, n.name)
			}
		}
	}
	return out
}

var rules = []rule.Rule{
	{ID: RulePackageChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A file must keep its package: message full names, Any type URLs and gRPC paths contain it.",
		Source:  srcConfluent + "PACKAGE_CHANGED is incompatible; " + srcBuf + "FILE_SAME_PACKAGE (WIRE)"},
	{ID: RuleMessageRemoved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "Every message of the writer file must still exist in the reader file: data may have been written with any of them (Confluent message indexes).",
		Source:  srcConfluent + "MESSAGE_REMOVED is incompatible"},
	{ID: RuleFieldKindChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field must not change between scalar (enums included), message and map.",
		Source:  srcConfluent + "FIELD_KIND_CHANGED is incompatible; " + srcEncoding},
	{ID: RuleFieldScalarKindChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A scalar field may only change within its group: int32/int64/uint32/uint64/bool/enum; sint32/sint64; fixed32/sfixed32; fixed64/sfixed64; string/bytes; float; double.",
		Source:  srcConfluent + "FIELD_SCALAR_KIND_CHANGED is incompatible; " + srcEncoding},
	{ID: RuleFieldNamedTypeChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A message field must keep referring to a message of the same name (relative to its package).",
		Source:  srcConfluent + "FIELD_NAMED_TYPE_CHANGED is incompatible"},
	{ID: RuleFieldNumericLabelChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A numeric or enum field must not change between singular and repeated: repeated numbers are packed into one length-delimited record.",
		Source:  srcConfluent + "FIELD_NUMERIC_LABEL_CHANGED is incompatible; " + srcEncoding + ` ("Packed Repeated Fields")`},
	{ID: RuleRequiredFieldAdded, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "The reader must not require a field the writer does not always write: parsing fails on a missing required field.",
		Source:  srcConfluent + "REQUIRED_FIELD_ADDED is incompatible (Charter also reports optional→required); " + srcBuf + "MESSAGE_SAME_REQUIRED_FIELDS (WIRE)"},
	{ID: RuleRequiredFieldRemoved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field the writer requires must stay required in the reader: once one side drops it, the other side's parser fails on messages without it.",
		Source:  srcConfluent + "REQUIRED_FIELD_REMOVED is incompatible (Charter also reports required→optional); " + srcBuf + "MESSAGE_SAME_REQUIRED_FIELDS (WIRE)"},
	{ID: RuleFieldMovedToExistingOneof, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A reader oneof must not gather a field with members of another writer oneof or plain fields: the writer may set them together and the reader keeps only the last.",
		Source:  srcConfluent + "FIELD_MOVED_TO_EXISTING_ONEOF is incompatible; " + `Protocol Buffers docs, "Oneof" / "Backwards-compatibility issues"`},
	{ID: RuleMultipleFieldsMovedToOneof, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A reader oneof must not gather several plain fields of the writer: the writer may set them together and the reader keeps only the last.",
		Source:  srcConfluent + "MULTIPLE_FIELDS_MOVED_TO_ONEOF is incompatible; " + `Protocol Buffers docs, "Oneof" / "Backwards-compatibility issues"`},
	{ID: RuleOneofFieldRemoved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A member of a writer oneof must not be deleted while the oneof stays: the reader would see the oneof as unset.",
		Source:  srcConfluent + "ONEOF_FIELD_REMOVED is incompatible"},
	{ID: RuleFieldNameChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field must keep its name where data is exchanged as JSON or text format (binary data does not carry names).",
		Source:  srcJSON + " (parsers accept the field name or its JSON name); " + srcBuf + "FIELD_SAME_NAME (WIRE_JSON); Confluent allows FIELD_NAME_CHANGED"},
	{ID: RuleFieldJSONNameChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field must keep its JSON name (json_name or the lowerCamelCase default) where data is exchanged as JSON.",
		Source:  srcJSON + "; " + srcBuf + "FIELD_SAME_JSON_NAME (WIRE_JSON)"},
	{ID: RuleEnumValueNameChanged, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "An enum value must keep its name where data is exchanged as JSON: JSON writes enum values by name.",
		Source:  srcJSON + "; " + srcBuf + "ENUM_VALUE_SAME_NAME (WIRE_JSON); Confluent allows ENUM_CONST_CHANGED"},
	{ID: RuleFieldWireCompatibleType, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field's type may only change within buf's wire-compatible groups (int32/int64/uint32/uint64/bool; sint32/sint64; fixed32/sfixed32; fixed64/sfixed64; string→bytes; same message; same enum or a superset of it).",
		Source:  srcBuf + "FIELD_WIRE_COMPATIBLE_TYPE (WIRE); " + srcEncoding},
	{ID: RuleFieldWireJSONCompatibleType, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field's type may only change within buf's wire- and JSON-compatible groups (int32/uint32; int64/uint64; fixed32/sfixed32; fixed64/sfixed64).",
		Source:  srcBuf + "FIELD_WIRE_JSON_COMPATIBLE_TYPE (WIRE_JSON); " + srcJSON},
	{ID: RuleFieldWireCompatibleCardinality, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field may only change cardinality within buf's wire groups (optional with or without presence; required; repeated or map).",
		Source:  srcBuf + "FIELD_WIRE_COMPATIBLE_CARDINALITY (WIRE)"},
	{ID: RuleFieldWireJSONCompatibleCardinality, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field may only change cardinality within buf's JSON groups (optional with or without presence; required; repeated; map).",
		Source:  srcBuf + "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY (WIRE_JSON)"},
	{ID: RuleFieldSameOneof, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A field must stay in the same oneof, or outside any oneof.",
		Source:  srcBuf + "FIELD_SAME_ONEOF (WIRE); Confluent allows moving a field out of a oneof and a single field into a new one"},
	{ID: RuleFieldSameDefault, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A scalar field must keep its default value (proto2 and editions): readers fill absent fields with it.",
		Source:  srcBuf + "FIELD_SAME_DEFAULT (WIRE, configuration v2)"},
	{ID: RuleFieldNoDeleteUnlessNumberReserved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A deleted field's number must be reserved so that it cannot be reused with another type.",
		Source:  srcBuf + "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED (WIRE); Confluent allows FIELD_REMOVED"},
	{ID: RuleFieldNoDeleteUnlessNameReserved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A deleted field's name must be reserved so that JSON parsers skip it instead of failing.",
		Source:  srcBuf + "FIELD_NO_DELETE_UNLESS_NAME_RESERVED (WIRE_JSON); " + srcJSON},
	{ID: RuleEnumValueNoDeleteUnlessNumberReserved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A deleted enum value's number must be reserved so that it cannot be reused with another meaning.",
		Source:  srcBuf + "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED (WIRE); Confluent allows ENUM_CONST_REMOVED"},
	{ID: RuleEnumValueNoDeleteUnlessNameReserved, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A deleted enum value's name must be reserved (JSON writes enum values by name).",
		Source:  srcBuf + "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED (WIRE_JSON)"},
	{ID: RuleReservedMessageNoDelete, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A message must keep its reserved numbers and names.",
		Source:  srcBuf + "RESERVED_MESSAGE_NO_DELETE (WIRE)"},
	{ID: RuleReservedEnumNoDelete, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "An enum must keep its reserved numbers and names.",
		Source:  srcBuf + "RESERVED_ENUM_NO_DELETE (WIRE)"},
	{ID: RuleMessageSameJSONFormat, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "A message whose json_format feature is ALLOW must keep it (editions).",
		Source:  srcBuf + "MESSAGE_SAME_JSON_FORMAT (WIRE_JSON)"},
	{ID: RuleEnumSameJSONFormat, Format: compat.Protobuf, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "An enum whose json_format feature is ALLOW must keep it (editions).",
		Source:  srcBuf + "ENUM_SAME_JSON_FORMAT (WIRE_JSON)"},
}
