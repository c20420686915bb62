// Package project is Charter's developer-side gate: it reads a repository's
// charter.yaml (which files are schemas, which subject each one is, at
// which compatibility level and with which rule severities), gathers the
// working tree's schemas and a baseline's (a git ref, another directory or
// the registry), and checks every subject, returning one [policy.Report]
// with every finding, not just the first. `charter check`, `charter init`
// and `charter diff` are thin commands over this package, and the CI
// action runs `charter check`.
//
// # Configuration
//
// charter.yaml is validated against [ConfigSchema] (a JSON Schema shipped
// in this package); see testdata/ and `charter init` for examples:
//
//	version: 1
//	registry: http://localhost:8081
//	defaults: {level: BACKWARD, strategy: topic-value}
//	schemas:
//	  - files: "schemas/**/*.avsc"
//	  - files: "proto/**/*.proto"
//	    strategy: record
//	    import_paths: [proto]
//	overrides:
//	  - subject: "payments-*"
//	    level: FULL_TRANSITIVE
//	    severity: {AVRO_READER_FIELD_MISSING_DEFAULT: warning}
//
// Subjects follow Confluent's naming strategies: topic-value
// ("<topic>-value", TopicNameStrategy), topic-key, record (the record's full
// name, RecordNameStrategy) and topic-record (TopicRecordNameStrategy); the
// topic is the file name without extension unless the entry's topic
// template says otherwise.
//
// # Checks
//
// [Check] compares each subject with its baseline versions at the
// subject's level with [compat.Check]: the level its schemas entry or an
// override sets, else, against a registry, the registry's own level for
// the subject, else defaults.level. Protobuf subjects are checked with the
// rule profile (CONFLUENT, WIRE or WIRE_JSON) that protobuf_profile gives
// their schemas entry, else the top-level one, else CONFLUENT; against a
// registry the policy's protobufProfile decides, charter.yaml's applying
// only when stricter (RuleProfileIgnored). It reports
// the project rules of
// [Rules] (unparsable schemas, format changes, subjects that disappear).
// Every subject is then judged by the one gate (package action/gate) on the
// state the baseline gives: the registry's governance state, or the one
// charter.yaml gives offline (judge.go). Findings carry the
// file and line of the field they are about when the format knows it.
package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
)

// ErrNoConfig is returned by Find when no charter.yaml is found.
var ErrNoConfig = errors.New("no " + ConfigFile + " found")

// Project is a directory with a charter.yaml.
type Project struct {
	// Root is the absolute directory holding the configuration; schema
	// paths are relative to it.
	Root string
	// ConfigPath is the configuration file as given or found.
	ConfigPath string
	Config     *Config
	// Formats parse and check each schema type; Load sets Avro,
	// Protobuf (registry profile) and JSON Schema (strict policy), the
	// registry's defaults.
	Formats map[compat.SchemaType]compat.Format
}

// DefaultFormats returns the formats the registry checks with, those of
// compat/formats, by type.
func DefaultFormats() map[compat.SchemaType]compat.Format {
	out := map[compat.SchemaType]compat.Format{}
	for _, e := range formats.All() {
		out[e.Type] = e.Format
	}
	return out
}

// Load reads and validates the configuration file at configPath; the
// project root is its directory. Errors: a *ConfigError for invalid
// content, or a wrapped fs error.
func Load(configPath string) (*Project, error) {
	text, err := os.ReadFile(configPath)
	if err != nil {
		return nil, fmt.Errorf("read project config: %w", err)
	}
	cfg, err := ParseConfig(configPath, text)
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(filepath.Dir(configPath))
	if err != nil {
		return nil, fmt.Errorf("project root of %s: %w", configPath, err)
	}
	return &Project{Root: root, ConfigPath: configPath, Config: cfg, Formats: DefaultFormats()}, nil
}

// Find loads the charter.yaml of dir or of its closest parent. It returns
// an error matching ErrNoConfig when there is none.
func Find(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", ConfigFile, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("find %s: directory %s: %w", ConfigFile, abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("find %s: %s is not a directory", ConfigFile, abs)
	}
	for d := abs; ; {
		p := filepath.Join(d, ConfigFile)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return Load(p)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%w in %s or its parents (run `charter init` to write one)", ErrNoConfig, abs)
		}
		d = parent
	}
}
