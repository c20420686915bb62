package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/sqlite"
)

// ruleCase is where a rule's testdata case is and how it runs: run
// returns what the case reports.
type ruleCase struct {
	path string
	run  func(testing.TB) ([]fired, error)
}

// fired is one finding of a case: its rule and severity.
type fired struct {
	id  string
	sev rule.Severity
}

// formatDirs are the packages of the formats, whose testdata holds their
// rules' cases.
var formatDirs = map[compat.SchemaType]string{compat.Avro: "avro", compat.Protobuf: "protobuf", compat.JSON: "jsonschema"}

// caseOf finds r's case, named after its ID in lower case:
//
//   - an evidence rule: compat/evidence/testdata/<id>/ (reader and
//     writer), through evidence.Check at BACKWARD;
//   - a format's rule: compat/<format>/testdata/<id>/ (reader and writer;
//     a Protobuf rule runs in the first profile it lists, a JSON Schema
//     case may set the format's work budget in format.json);
//   - a contract rule: contracts/testdata/pacts/<id>.json and its schema;
//   - a PII rule: pii/testdata/rules/<id>/input.json;
//   - a project rule: testdata/project/<id>/ (head, the working tree, and
//     base, the dir: baseline, or registry, the schemas of a registry);
//   - a rule whose case needs the registry's own config (RESERVED_FIELD:
//     validateFields, metadata): testdata/registry/<id>/ (case.json,
//     candidate and optional latest schema), through a registry's dry run;
//   - a governance rule or the gate's own: testdata/gate/<id>/ (case.json,
//     candidate and optional latest schema), through gate.Evaluate.
func caseOf(r rule.Rule) ruleCase {
	id := strings.ToLower(r.ID)
	repo := filepath.Join("..", "..")
	switch {
	case isDir(filepath.Join("testdata", "registry", id)):
		dir := filepath.Join("testdata", "registry", id)
		return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runRegistryCase(dir) }}
	case isDir(filepath.Join(repo, "compat", "evidence", "testdata", id)):
		dir := filepath.Join(repo, "compat", "evidence", "testdata", id)
		return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runEvidenceCase(dir, r) }}
	case r.Format != "":
		dir := filepath.Join(repo, "compat", formatDirs[r.Format], "testdata", id)
		return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runFormatCase(dir, r) }}
	case r.Category == rule.CategoryContract:
		base := filepath.Join(repo, "contracts", "testdata", "pacts", id)
		return ruleCase{base + ".json", func(tb testing.TB) ([]fired, error) { return runContractCase(base) }}
	case r.Category == rule.CategoryPII:
		dir := filepath.Join(repo, "pii", "testdata", "rules", id)
		return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runPIICase(dir) }}
	case r.Category == rule.CategoryProject:
		dir := filepath.Join("testdata", "project", id)
		return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runProjectCase(tb, dir) }}
	}
	dir := filepath.Join("testdata", "gate", id)
	return ruleCase{dir, func(tb testing.TB) ([]fired, error) { return runGateCase(dir) }}
}

// runFormatCase reads data written with writer.<ext> with reader.<ext>.
func runFormatCase(dir string, r rule.Rule) ([]fired, error) {
	e, ok := formats.ByType(r.Format)
	if !ok {
		return nil, fmt.Errorf("no format %s", r.Format)
	}
	profile := ""
	if len(r.Profiles) > 0 {
		profile = r.Profiles[0]
	}
	f, err := formats.Lookup(r.Format, profile)
	if err != nil {
		return nil, err
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "format.json")); err == nil {
		// A JSON Schema case may lower the work budget (Format's
		// MaxComparisons) to stay small.
		var jf jsonschema.Format
		if err := decodeStrict(raw, &jf); err != nil {
			return nil, fmt.Errorf("format.json: %w", err)
		}
		f = jf
	}
	reader, err := parseFile(f, filepath.Join(dir, "reader"+e.Extensions[0]))
	if err != nil {
		return nil, err
	}
	writer, err := parseFile(f, filepath.Join(dir, "writer"+e.Extensions[0]))
	if err != nil {
		return nil, err
	}
	// The gate reports every violation of a level as an error
	// (gate.CompatFindings).
	var out []fired
	for _, fd := range gate.CompatFindings("", compat.Result{Findings: compatFindings(f.CheckRead(reader, writer))}) {
		out = append(out, fired{fd.RuleID, fd.Severity})
	}
	return out, nil
}

// runEvidenceCase reads events written with writer.<ext> with
// reader.<ext>: the new schema (reader) checked BACKWARD against version
// 1 (writer), as charter diff --evidence and the registry do.
func runEvidenceCase(dir string, r rule.Rule) ([]fired, error) {
	e, ok := formats.ByType(r.Format)
	if !ok {
		return nil, fmt.Errorf("no format %s", r.Format)
	}
	reader, err := parseFile(e.Format, filepath.Join(dir, "reader"+e.Extensions[0]))
	if err != nil {
		return nil, err
	}
	writer, err := parseFile(e.Format, filepath.Join(dir, "writer"+e.Extensions[0]))
	if err != nil {
		return nil, err
	}
	rep, err := evidence.Check(context.Background(), compat.Backward, reader, []compat.Previous{{Version: 1, Schema: writer}}, evidence.Options{})
	if err != nil {
		return nil, err
	}
	return findingIDs(evidence.RuleFindings("", rep)), nil
}

func parseFile(f compat.Format, path string) (compat.Schema, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := f.Parse(string(text), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// contractNow is the clock of the contract cases (contracts' own tests
// use it too).
var contractNow = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// runContractCase verifies <base>.json against <base>.avsc, .proto or
// .schema.json, with <base>.baseline.<ext> and <base>.deprecations.json
// when they exist.
func runContractCase(base string) ([]fired, error) {
	c, err := contracts.ReadContract(base + ".json")
	if err != nil {
		return nil, err
	}
	opts := contracts.Options{Now: contractNow}
	var schema compat.Schema
	for ext, typ := range map[string]compat.SchemaType{".avsc": compat.Avro, ".proto": compat.Protobuf, ".schema.json": compat.JSON} {
		if _, err := os.Stat(base + ext); err != nil {
			continue
		}
		if schema, err = contracts.ReadSchemaFile(base+ext, typ); err != nil {
			return nil, err
		}
		if _, err := os.Stat(base + ".baseline" + ext); err == nil {
			if opts.Baseline, err = contracts.ReadSchemaFile(base+".baseline"+ext, typ); err != nil {
				return nil, err
			}
		}
	}
	if schema == nil {
		return nil, fmt.Errorf("no schema beside %s.json", base)
	}
	if raw, err := os.ReadFile(base + ".deprecations.json"); err == nil {
		var deps contracts.DeprecationMap
		if err := decodeStrict(raw, &deps); err != nil {
			return nil, fmt.Errorf("%s.deprecations.json: %w", base, err)
		}
		opts.Deprecations = deps
	}
	rep, err := contracts.Verify([]*contracts.Contract{c}, schema, opts)
	if err != nil {
		return nil, err
	}
	var out []fired
	for _, cr := range rep.Contracts {
		for _, f := range cr.Findings {
			out = append(out, fired{f.RuleID, f.Severity})
		}
	}
	return out, nil
}

// runPIICase evaluates <dir>/input.json: {"input": pii.Input, "config":
// pii.Config}.
func runPIICase(dir string) ([]fired, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "input.json"))
	if err != nil {
		return nil, err
	}
	var c struct {
		Input  pii.Input  `json:"input"`
		Config pii.Config `json:"config"`
	}
	if err := decodeStrict(raw, &c); err != nil {
		return nil, err
	}
	if err := c.Config.Validate(); err != nil {
		return nil, err
	}
	return findingIDs(pii.Evaluate(c.Input, c.Config)), nil
}

// runProjectCase checks the project <dir>/head against the baseline
// directory <dir>/base or, when there is <dir>/registry, against a
// registry holding each of its files as version 1 of the subject the
// file is named after (orders-value.avsc: subject orders-value).
func runProjectCase(tb testing.TB, dir string) ([]fired, error) {
	p, err := project.Load(filepath.Join(dir, "head", "charter.yaml"))
	if err != nil {
		return nil, err
	}
	baseline, err := projectBaseline(tb, dir)
	if err != nil {
		return nil, err
	}
	res, err := project.Check(context.Background(), p, project.Options{Baseline: baseline})
	if err != nil {
		return nil, err
	}
	return findingIDs(res.Findings), nil
}

func projectBaseline(tb testing.TB, dir string) (project.Baseline, error) {
	files, err := os.ReadDir(filepath.Join(dir, "registry"))
	if os.IsNotExist(err) {
		base, err := filepath.Abs(filepath.Join(dir, "base"))
		return project.DirBaseline(base), err
	}
	if err != nil {
		return nil, err
	}
	c, url := projecttest.Registry(tb)
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(dir, "registry", f.Name()))
		if err != nil {
			return nil, err
		}
		ext := filepath.Ext(f.Name())
		e, ok := formats.ByExtension(ext)
		if !ok {
			return nil, fmt.Errorf("%s: not a schema file", f.Name())
		}
		if _, err := c.Register(context.Background(), strings.TrimSuffix(f.Name(), ext), client.NewSchema{Type: e.Type, Text: string(text)}); err != nil {
			return nil, err
		}
	}
	return project.RegistryBaseline(c, url), nil
}

// gateCase is a governance case's case.json: the moment, the subject's
// level and governance state, and the candidate's version number
// (Existing: the re-registration of that version). The schemas are
// candidate.<ext> and, when the subject has one, latest.<ext>.
type gateCase struct {
	Now      time.Time               `json:"now"`
	Level    compat.Level            `json:"level"`
	Version  int                     `json:"version"`
	Existing bool                    `json:"existing,omitempty"`
	State    governance.SubjectState `json:"state"`
}

func runGateCase(dir string) ([]fired, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	var c gateCase
	if err := decodeStrict(raw, &c); err != nil {
		return nil, fmt.Errorf("case.json: %w", err)
	}
	candidate, f, err := schemaFile(dir, "candidate", c.State.Policy.ProtobufProfile)
	if err != nil {
		return nil, err
	}
	in := gate.Input{Subject: c.State.Subject, Now: c.Now, Format: f, Level: c.Level, State: c.State, Existing: c.Existing,
		Candidate: governance.Version{Version: c.Version, Schema: candidate}}
	if latest, _, err := schemaFile(dir, "latest", c.State.Policy.ProtobufProfile); err == nil {
		in.Latest = &governance.Version{Version: c.Version - 1, Schema: latest}
		in.Against = []compat.Previous{{Version: c.Version - 1, Schema: latest}}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	res, err := gate.Evaluate(in)
	if err != nil {
		return nil, err
	}
	return findingIDs(res.Findings), nil
}

// registryCase is a registry case's case.json: the subject's
// validateFields config and the metadata of its latest version (registered
// first, when latest.<ext> exists) and of the candidate.
type registryCase struct {
	ValidateFields    bool            `json:"validateFields"`
	LatestMetadata    json.RawMessage `json:"latestMetadata,omitempty"`
	CandidateMetadata json.RawMessage `json:"candidateMetadata,omitempty"`
}

// runRegistryCase dry-runs the candidate on a registry over a fresh
// SQLite store (POST /governance/subjects/{s}/check).
func runRegistryCase(dir string) ([]fired, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	var c registryCase
	if err := decodeStrict(raw, &c); err != nil {
		return nil, fmt.Errorf("case.json: %w", err)
	}
	tmp, err := os.MkdirTemp("", "charter-rules-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(tmp, "charter.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	svc := registry.NewService(store, formats.Formats())
	const subject = "shipments-value"
	if _, err := svc.SetConfig(ctx, subject, registry.ConfigUpdate{ValidateFields: &c.ValidateFields}); err != nil {
		return nil, err
	}
	request := func(name string, md json.RawMessage) (registry.RegisterRequest, error) {
		for _, e := range formats.All() {
			text, err := os.ReadFile(filepath.Join(dir, name+e.Extensions[0]))
			if err == nil {
				return registry.RegisterRequest{Schema: string(text), Type: e.Type, Metadata: md}, nil
			}
		}
		return registry.RegisterRequest{}, os.ErrNotExist
	}
	if latest, err := request("latest", c.LatestMetadata); err == nil {
		if _, err := svc.Register(ctx, subject, latest); err != nil {
			return nil, err
		}
	}
	candidate, err := request("candidate", c.CandidateMetadata)
	if err != nil {
		return nil, err
	}
	res, err := svc.Governance().Check(ctx, subject, candidate, time.Time{})
	if err != nil {
		return nil, err
	}
	return findingIDs(res.Findings), nil
}

// schemaFile parses <dir>/<name>.avsc, .proto or .json (the first that
// exists) with its format, in the Protobuf profile given; an error
// satisfying os.IsNotExist when there is none.
func schemaFile(dir, name, profile string) (compat.Schema, compat.Format, error) {
	for _, e := range formats.All() {
		path := filepath.Join(dir, name+e.Extensions[0])
		if _, err := os.Stat(path); err != nil {
			continue
		}
		p := ""
		if e.Type == compat.Protobuf {
			p = profile
		}
		f, err := formats.Lookup(e.Type, p)
		if err != nil {
			return nil, nil, err
		}
		s, err := parseFile(f, path)
		return s, f, err
	}
	return nil, nil, os.ErrNotExist
}

func findingIDs(fs []rule.Finding) []fired {
	var out []fired
	for _, f := range fs {
		out = append(out, fired{f.RuleID, f.Severity})
	}
	return out
}

func compatFindings(vs []compat.Violation) []compat.Finding {
	out := make([]compat.Finding, len(vs))
	for i, v := range vs {
		out[i] = compat.Finding{Violation: v, Direction: compat.DirBackward}
	}
	return out
}

func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
