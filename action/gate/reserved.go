package gate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// Confluent's reserved fields: with validateFields on in the subject's
// effective config (SubjectState.ValidateFields), the metadata property
// confluent:reserved lists top-level field names ("a, b") that the schema
// must not have, and that a later version must keep listing (Confluent
// Schema Registry, "Data Contracts", reserved fields). The registry
// answers 409 to a registration that breaks them, as Confluent does.
const (
	// ReservedProperty is the metadata property that lists reserved
	// field names, comma-separated.
	ReservedProperty = "confluent:reserved"
	// RuleReservedField: the candidate breaks the reserved fields.
	RuleReservedField = "RESERVED_FIELD"
)

var reservedRule = rule.Rule{ID: RuleReservedField, Category: rule.CategoryReserved, Severity: rule.Error,
	Purpose: "With validateFields on, the new schema has no top-level field that its metadata property confluent:reserved lists, and keeps listing every name the latest version reserved.",
	Source:  `Confluent Schema Registry, "Data Contracts": reserved fields (confluent:reserved, validateFields)`}

// ReservedFindings returns one error per reserved-field violation of the
// candidate, with Confluent's messages; none when validateFields is off.
func ReservedFindings(in Input) []rule.Finding {
	if !in.State.ValidateFields {
		return nil
	}
	reserved := reservedNames(in.Candidate.Metadata)
	var out []rule.Finding
	add := func(path, msg string) {
		out = append(out, rule.Finding{RuleID: RuleReservedField, Severity: rule.Error, Subject: in.Subject, Path: path, Message: msg,
			Hint: "rename the field, or take its name out of " + ReservedProperty + " in a new major line"})
	}
	if len(reserved) > 0 {
		for _, f := range governance.TopLevel(in.Candidate.Schema.Type(), compat.Fields(in.Candidate.Schema)) {
			if slices.Contains(reserved, f.Name) {
				add(f.Path, fmt.Sprintf("The new schema has field that conflicts with the reserved field %s.", f.Name))
			}
		}
	}
	if in.Latest != nil {
		for _, n := range reservedNames(in.Latest.Metadata) {
			if !slices.Contains(reserved, n) {
				add("", fmt.Sprintf("The new schema has reserved field %s removed from its metadata property %s.", n, ReservedProperty))
			}
		}
	}
	return out
}

// reservedNames splits the confluent:reserved property of metadata
// (Confluent's {"properties": {...}} object) into names.
func reservedNames(metadata json.RawMessage) []string {
	var md struct {
		Properties map[string]any `json:"properties"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &md) != nil {
		return nil
	}
	v, _ := md.Properties[ReservedProperty].(string)
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// ReservedMessages returns the messages of the reserved-field findings
// of fs, for the registry's 409 answer.
func ReservedMessages(fs []rule.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.RuleID == RuleReservedField {
			out = append(out, f.Message)
		}
	}
	return out
}
