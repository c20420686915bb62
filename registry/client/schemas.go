package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/charter-dev/charter/compat"
)

// Latest is the version number that names a subject's latest version
// (Confluent accepts "latest" and -1).
const Latest = -1

// Reference is one entry of a schema's `references`: Name is how the schema
// text names the dependency (Avro full name, Protobuf import path, JSON
// Schema $ref URL), Subject and Version where it is registered.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is a registered schema as GET /schemas/ids/{id} returns it
// (Confluent's SchemaString entity), with its ID.
type Schema struct {
	ID int64 `json:"id,omitempty"`
	// Type is AVRO when the server omits it (Confluent omits it for Avro).
	Type       compat.SchemaType `json:"schemaType,omitempty"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references,omitempty"`
	// Metadata and RuleSet are the data contract, nil when absent.
	Metadata *Metadata `json:"metadata,omitempty"`
	RuleSet  *RuleSet  `json:"ruleSet,omitempty"`
}

// SubjectSchema is one version of a subject (Confluent's Schema entity).
type SubjectSchema struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
	Schema
	// Deleted is true for a soft-deleted version (read with IncludeDeleted).
	Deleted bool `json:"deleted,omitempty"`
}

// SubjectVersion names one version of one subject.
type SubjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Metadata is Confluent's data-contract Metadata: tags by field path glob,
// free-form properties (e.g. "application.major.version") and the names of
// sensitive properties.
type Metadata struct {
	Tags       map[string][]string `json:"tags,omitempty"`
	Properties map[string]string   `json:"properties,omitempty"`
	Sensitive  []string            `json:"sensitive,omitempty"`
}

// RuleSet is Confluent's data-contract RuleSet. Migration rules run when a
// reader reads data written with another version (UPGRADE, DOWNGRADE,
// UPDOWN); domain rules on write and read; encoding rules on the bytes.
type RuleSet struct {
	MigrationRules []Rule `json:"migrationRules,omitempty"`
	DomainRules    []Rule `json:"domainRules,omitempty"`
	EncodingRules  []Rule `json:"encodingRules,omitempty"`
}

// Rule is one data-contract rule (Confluent's Rule entity), not one of
// Charter's rules (compat/rule.Rule, GET /governance/rules: RuleStatus):
// Confluent's wire shape, which the registry stores and returns. Kind is
// TRANSFORM or CONDITION; Mode UPGRADE, DOWNGRADE, UPDOWN, WRITE, READ or
// WRITEREAD; Type the executor ("JSONATA", "CEL", "CEL_FIELD", "ENCRYPT" …);
// OnSuccess/OnFailure an action (NONE, ERROR, DLQ), or two separated by a
// comma for UPDOWN and WRITEREAD rules (upgrade/write first).
type Rule struct {
	Name      string            `json:"name"`
	Doc       string            `json:"doc,omitempty"`
	Kind      string            `json:"kind,omitempty"`
	Mode      string            `json:"mode,omitempty"`
	Type      string            `json:"type,omitempty"`
	Tags      []string          `json:"tags,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Expr      string            `json:"expr,omitempty"`
	OnSuccess string            `json:"onSuccess,omitempty"`
	OnFailure string            `json:"onFailure,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
}

// ReadOption changes a read call.
type ReadOption func(url.Values)

// IncludeDeleted makes a read see soft-deleted versions too (Confluent
// `deleted=true`).
func IncludeDeleted() ReadOption {
	return func(q url.Values) { q.Set("deleted", "true") }
}

func readQuery(opts []ReadOption) url.Values {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	return q
}

func defaultType(s *Schema) {
	if s.Type == "" {
		s.Type = compat.Avro
	}
}

// SchemaByID returns the schema with a global ID (GET /schemas/ids/{id}).
// It returns an error matching srerr.ErrSchemaNotFound when no schema has
// that ID.
func (c *Client) SchemaByID(ctx context.Context, id int64) (Schema, error) {
	var s Schema
	if err := c.do(ctx, "GET", []string{"schemas", "ids", itoa(id)}, nil, nil, &s); err != nil {
		return Schema{}, fmt.Errorf("get schema %d: %w", id, err)
	}
	s.ID = id
	defaultType(&s)
	return s, nil
}

// VersionsOfID lists the subject versions that use schema ID (GET
// /schemas/ids/{id}/versions). With IncludeDeleted, soft-deleted versions
// are listed too. Errors: srerr.ErrSchemaNotFound.
func (c *Client) VersionsOfID(ctx context.Context, id int64, opts ...ReadOption) ([]SubjectVersion, error) {
	var out []SubjectVersion
	if err := c.do(ctx, "GET", []string{"schemas", "ids", itoa(id), "versions"}, readQuery(opts), nil, &out); err != nil {
		return nil, fmt.Errorf("list versions of schema %d: %w", id, err)
	}
	return out, nil
}

// Subjects lists the registered subjects (GET /subjects), soft-deleted
// ones too with IncludeDeleted.
func (c *Client) Subjects(ctx context.Context, opts ...ReadOption) ([]string, error) {
	var out []string
	if err := c.do(ctx, "GET", []string{"subjects"}, readQuery(opts), nil, &out); err != nil {
		return nil, fmt.Errorf("list subjects: %w", err)
	}
	return out, nil
}

// Versions lists a subject's version numbers in ascending order (GET
// /subjects/{subject}/versions), soft-deleted ones too with
// IncludeDeleted. Errors: srerr.ErrSubjectNotFound.
func (c *Client) Versions(ctx context.Context, subject string, opts ...ReadOption) ([]int, error) {
	var out []int
	if err := c.do(ctx, "GET", []string{"subjects", subject, "versions"}, readQuery(opts), nil, &out); err != nil {
		return nil, fmt.Errorf("list versions of subject %q: %w", subject, err)
	}
	return out, nil
}

// Version returns version n of subject with its schema, metadata and
// ruleSet (GET /subjects/{subject}/versions/{n}); n may be Latest. With
// IncludeDeleted a soft-deleted version is returned too. Errors:
// srerr.ErrSubjectNotFound, srerr.ErrVersionNotFound,
// srerr.ErrInvalidVersion.
func (c *Client) Version(ctx context.Context, subject string, n int, opts ...ReadOption) (SubjectSchema, error) {
	seg := itoa(n)
	if n == Latest {
		seg = "latest"
	}
	var s SubjectSchema
	if err := c.do(ctx, "GET", []string{"subjects", subject, "versions", seg}, readQuery(opts), nil, &s); err != nil {
		return SubjectSchema{}, fmt.Errorf("get version %s of subject %q: %w", seg, subject, err)
	}
	defaultType(&s.Schema)
	return s, nil
}

// Latest returns the latest version of subject (Version with Latest).
func (c *Client) Latest(ctx context.Context, subject string) (SubjectSchema, error) {
	return c.Version(ctx, subject, Latest)
}

// NewSchema is what Register sends (Confluent's RegisterSchemaRequest).
// Type "" means AVRO. Metadata and RuleSet, when not nil, are sent as they
// are.
type NewSchema struct {
	Type       compat.SchemaType `json:"schemaType,omitempty"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references,omitempty"`
	Metadata   *Metadata         `json:"metadata,omitempty"`
	RuleSet    *RuleSet          `json:"ruleSet,omitempty"`
}

// Register registers a schema under subject (POST
// /subjects/{subject}/versions) and returns its global ID; registering an
// existing schema again returns its ID. Errors: srerr.ErrIncompatibleSchema,
// srerr.ErrInvalidSchema, srerr.ErrOperationNotPermitted (read-only mode).
func (c *Client) Register(ctx context.Context, subject string, s NewSchema) (int64, error) {
	var out struct {
		ID int64 `json:"id"`
	}
	if err := c.do(ctx, "POST", []string{"subjects", subject, "versions"}, nil, s, &out); err != nil {
		return 0, fmt.Errorf("register schema under subject %q: %w", subject, err)
	}
	return out.ID, nil
}

// SetCompatibilityGroup sets the subject's compatibilityGroup config (PUT
// /config/{subject}): compatibility is then checked only against versions
// whose metadata property of that name has the same value.
func (c *Client) SetCompatibilityGroup(ctx context.Context, subject, property string) error {
	body := map[string]string{"compatibilityGroup": property}
	if err := c.do(ctx, "PUT", []string{"config", subject}, nil, body, (*json.RawMessage)(new([]byte))); err != nil {
		return fmt.Errorf("set compatibilityGroup of subject %q: %w", subject, err)
	}
	return nil
}
