package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Confluent's reserved fields: with validateFields on in the subject's
// effective config, metadata.properties["confluent:reserved"] lists
// top-level field names ("a, b") that the schema must not have, and that a
// later version must keep listing (Confluent Schema Registry,
// "Data contracts", reserved fields).
const (
	// ReservedProperty is the metadata property that lists reserved
	// field names, comma-separated.
	ReservedProperty = "confluent:reserved"
	// RuleReservedField is the finding ID of a reserved-field violation
	// (POST /governance/subjects/{s}/check reports it; register answers
	// 409, as Confluent does).
	RuleReservedField = "RESERVED_FIELD"
)

// Rules returns the rules the registry fires itself, beside the gate's:
// RESERVED_FIELD, which Confluent's reserved fields need the stored
// subject config and the latest version's metadata for.
func Rules() []rule.Rule {
	return []rule.Rule{
		{ID: RuleReservedField, Category: rule.CategoryReserved, Severity: rule.Error,
			Purpose: "With validateFields on, the new schema has no top-level field that its metadata property confluent:reserved lists, and keeps listing every name the latest version reserved.",
			Source:  `Confluent Schema Registry, "Data Contracts": reserved fields (confluent:reserved, validateFields)`},
	}
}

// reservedNames splits a confluent:reserved value into names.
func reservedNames(meta json.RawMessage) []string {
	v, ok := metadataProperty(meta, ReservedProperty)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// reservedFieldViolations returns Confluent's messages for a candidate
// that has a top-level field it reserves, or whose reserved list drops a
// name the latest live version reserved. Nothing when validateFields is
// off.
func reservedFieldViolations(ctx context.Context, tx Tx, cfg Config, cand candidate, liveVersions []SubjectVersion) ([]string, error) {
	if cfg.ValidateFields == nil || !*cfg.ValidateFields {
		return nil, nil
	}
	reserved := reservedNames(cand.schema.Metadata)
	var out []string
	if len(reserved) > 0 {
		for _, f := range governance.TopLevel(cand.parsed.Type(), compat.Fields(cand.parsed)) {
			if slices.Contains(reserved, f.Name) {
				out = append(out, fmt.Sprintf("The new schema has field that conflicts with the reserved field %s.", f.Name))
			}
		}
	}
	if len(liveVersions) > 0 {
		prev, err := storedSchema(ctx, tx, liveVersions[len(liveVersions)-1].SchemaID)
		if err != nil {
			return nil, err
		}
		for _, n := range reservedNames(prev.Metadata) {
			if !slices.Contains(reserved, n) {
				out = append(out, fmt.Sprintf("The new schema has reserved field %s removed from its metadata property %s.", n, ReservedProperty))
			}
		}
	}
	return out, nil
}

// errReservedFields is the 409 answer to reserved-field violations.
func errReservedFields(subject string, msgs []string) error {
	return srerr.New(srerr.ErrIncompatibleSchema,
		"Schema being registered is incompatible with the reserved fields of subject %q (validateFields is on), details: [%s]",
		subject, strings.Join(msgs, ", "))
}

// hasContract reports whether req carries metadata or a ruleSet (JSON
// null counts as none).
func hasContract(req RegisterRequest) bool {
	present := func(raw []byte) bool {
		s := strings.TrimSpace(string(raw))
		return s != "" && s != "null"
	}
	return present(req.Metadata) || present(req.RuleSet)
}

// fillEmptySchema gives a request with an empty schema and a data
// contract the latest live version's schema, type and references: as in
// Confluent, registering only metadata or a ruleSet makes a new version of
// the latest schema with the new contract. Without a live version the
// request stays empty (42201 follows).
func (s *Service) fillEmptySchema(ctx context.Context, tx Tx, req *RegisterRequest, liveVersions []SubjectVersion) error {
	if strings.TrimSpace(req.Schema) != "" || !hasContract(*req) || len(liveVersions) == 0 {
		return nil
	}
	st, err := storedSchema(ctx, tx, liveVersions[len(liveVersions)-1].SchemaID)
	if err != nil {
		return err
	}
	req.Schema, req.Type, req.References = st.Text, st.Type, st.References
	return nil
}
