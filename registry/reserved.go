package registry

import (
	"context"
	"strings"

	"github.com/charter-dev/charter/registry/srerr"
)

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
	st, err := storedSchema(ctx, tx, liveVersions[len(liveVersions)-1].Key())
	if err != nil {
		return err
	}
	req.Schema, req.Type, req.References = st.Text, st.Type, st.References
	return nil
}
