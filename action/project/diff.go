package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// DiffOptions tune Diff and DiffFiles.
type DiffOptions struct {
	// Level is the compatibility level to judge at; "" means FULL (both
	// directions, so every rule that any level could apply is reported).
	Level compat.Level
	// Format is the schema type of the file sides; "" means by extension.
	Format compat.SchemaType
	// Subject names the subject in the result; "" means the registry
	// side's subject, else "<name>-value" after the next file.
	Subject string
	// ImportPaths are the directories Protobuf imports resolve against;
	// default each file's own directory.
	ImportPaths []string
	// References are registered schemas the file sides use (as
	// `charter register --ref` names them), resolved in the registry
	// before the files' own directories are searched.
	References []client.Reference
	// ProtobufProfile is the rule profile of Protobuf sides: CONFLUENT
	// (the default, also for ""), WIRE or WIRE_JSON.
	ProtobufProfile string
}

// DiffSide is one side of a diff: a schema file, or a version of a
// subject in the registry.
type DiffSide struct {
	// File is the schema file's path; "" for a registry side.
	File string
	// Subject and Version name a registry version; Version may be
	// client.Latest.
	Subject string
	Version int
}

// RegistryPrefix starts a registry side of a diff: "registry:SUBJECT" (the
// latest version) or "registry:SUBJECT@VERSION".
const RegistryPrefix = "registry:"

// ParseDiffSide reads a diff argument: "registry:SUBJECT[@VERSION]"
// (VERSION a number ≥ 1 or latest) names a registered version, anything
// else a file.
func ParseDiffSide(arg string) (DiffSide, error) {
	rest, ok := strings.CutPrefix(arg, RegistryPrefix)
	if !ok {
		return DiffSide{File: arg}, nil
	}
	subject, version := rest, "latest"
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		subject, version = rest[:i], rest[i+1:]
	}
	if subject == "" {
		return DiffSide{}, fmt.Errorf("invalid %q: want registry:SUBJECT or registry:SUBJECT@VERSION", arg)
	}
	if version == "latest" {
		return DiffSide{Subject: subject, Version: client.Latest}, nil
	}
	n, err := strconv.Atoi(version)
	if err != nil || n < 1 {
		return DiffSide{}, fmt.Errorf("invalid %q: version %q is not a number ≥ 1 or latest", arg, version)
	}
	return DiffSide{Subject: subject, Version: n}, nil
}

// Registry reports whether the side is a registry version.
func (d DiffSide) Registry() bool { return d.File == "" }

// String is the file path, or "registry:SUBJECT@VERSION" ("@latest"
// before the version is known).
func (d DiffSide) String() string {
	if !d.Registry() {
		return filepath.ToSlash(d.File)
	}
	if d.Version == client.Latest {
		return RegistryPrefix + d.Subject + "@latest"
	}
	return RegistryPrefix + d.Subject + "@" + strconv.Itoa(d.Version)
}

// DiffFiles compares two schema files rule by rule; see Diff.
func DiffFiles(ctx context.Context, previous, next string, opts DiffOptions) (*Result, error) {
	return Diff(ctx, nil, DiffSide{File: previous}, DiffSide{File: next}, opts)
}

// Diff compares two schemas rule by rule: next as a new version of
// previous, at opts.Level. Each side is a file (references resolved from
// opts.References, then next to the file: Protobuf imports, JSON Schema
// $ref files, Avro named types in sibling .avsc files) or a registry
// version read from src (references resolved in the registry; soft-deleted
// versions count). The result has one subject; its Against names the
// previous side ("file:<path>" or "registry:SUBJECT@N"), and findings
// carry the previous side's version number when it is a registry one.
// Errors: unreadable files, a registry side without src, registry errors;
// a side that does not parse is reported as a SCHEMA_INVALID or
// BASELINE_SCHEMA_INVALID finding.
func Diff(ctx context.Context, src RegistrySource, previous, next DiffSide, opts DiffOptions) (*Result, error) {
	level := opts.Level
	if level == "" {
		level = compat.Full
	}
	if _, err := protobuf.ProfileByName(opts.ProtobufProfile); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	refs := &refCache{src: src, m: map[refKey]*refEntry{}}
	prev, prevVersion, err := loadSide(ctx, refs, previous, opts)
	if err != nil {
		return nil, err
	}
	cur, _, err := loadSide(ctx, refs, next, opts)
	if err != nil {
		return nil, err
	}
	subject := opts.Subject
	switch {
	case subject != "":
	case next.Registry():
		subject = next.Subject
	case previous.Registry():
		subject = previous.Subject
	default:
		subject = cur.Subject
	}
	against := "file:" + previous.String()
	if previous.Registry() {
		against = RegistryPrefix + previous.Subject + "@" + strconv.Itoa(prevVersion)
	}
	root := "."
	if !next.Registry() {
		root = filepath.Dir(next.File)
	}
	p := &Project{Root: root, Config: &Config{ProtobufProfile: opts.ProtobufProfile}, Formats: DefaultFormats()}
	s := &Subject{Name: subject, Level: level, Current: cur}
	pv := PriorVersion{Version: prevVersion, Text: prev.Text, Schema: prev.Parsed, Err: prev.Err, Deps: prev.Deps}
	s.Prior = &Prior{File: prev.File, Format: prev.Format, Versions: []PriorVersion{pv}}
	c := &checker{p: p, against: against, bySubject: map[string]*Subject{subject: s}, compatOnly: true}
	out := c.compare(s)
	res := &Result{Against: c.against, Subjects: []SubjectResult{{
		Subject: subject, File: cur.File, Format: cur.Format, Level: level, Status: out.status, Compared: out.compared,
	}}}
	res.Findings = out.findings
	if res.Findings == nil {
		res.Findings = []rule.Finding{}
	}
	sortFindings(res.Findings)
	countFindings(res)
	return res, nil
}

// loadSide loads one side of a diff, and the registry version number it
// resolved to (0 for a file). A registry side has no File, so findings
// about it carry no location.
func loadSide(ctx context.Context, refs *refCache, side DiffSide, opts DiffOptions) (*Schema, int, error) {
	if !side.Registry() {
		var deps []compat.Dependency
		if len(opts.References) > 0 {
			if refs.src == nil {
				return nil, 0, fmt.Errorf("diff: --ref needs a registry")
			}
			var err error
			if deps, err = refs.deps(ctx, opts.References, 0); err != nil {
				return nil, 0, fmt.Errorf("diff: %w", err)
			}
		}
		s, err := loadFile(ctx, side.File, deps, opts)
		if err != nil {
			return nil, 0, err
		}
		s.File = filepath.ToSlash(side.File)
		return s, 0, nil
	}
	if refs.src == nil {
		return nil, 0, fmt.Errorf("diff: %s needs a registry", side)
	}
	v, err := refs.src.Version(ctx, side.Subject, side.Version, client.IncludeDeleted())
	if err != nil {
		return nil, 0, fmt.Errorf("diff: %w", err)
	}
	s := &Schema{Subject: v.Subject, Format: v.Type, Text: v.Text}
	f, ok := DefaultFormats()[v.Type]
	if !ok {
		s.Err = fmt.Errorf("no %s format in this build", v.Type)
		return s, v.Version, nil
	}
	if s.Deps, err = refs.deps(ctx, v.References, 0); err != nil {
		return nil, 0, fmt.Errorf("diff: %s: %w", side, err)
	}
	s.Parsed, s.Err = parseSafely(f, v.Text, s.Deps)
	return s, v.Version, nil
}

// loadFile reads and parses one schema file with references resolved in
// its directory.
func loadFile(ctx context.Context, file string, regDeps []compat.Dependency, opts DiffOptions) (*Schema, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	m := &Mapping{Topic: "{name}", Strategy: TopicValue, ImportPaths: opts.ImportPaths, format: opts.Format}
	if len(m.ImportPaths) == 0 {
		m.ImportPaths = []string{"."}
	}
	p := &Project{Root: dir, Config: &Config{}, Formats: DefaultFormats()}
	t := dirTree{root: dir}
	s := &Schema{File: base, mapping: m, Format: formatOf(m, base)}
	if s.Format == "" {
		return nil, fmt.Errorf("diff: cannot tell the format of %s from its extension; pass --type", file)
	}
	b, err := t.read(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	s.Text = string(b)
	// Only the file's directory is searched for Avro named types.
	var siblings []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() {
				siblings = append(siblings, e.Name())
			}
		}
	}
	exists := func(f string) bool {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		return err == nil && fi.Mode().IsRegular()
	}
	r := &resolver{t: t, exists: exists, files: siblings, texts: map[string]string{base: s.Text}}
	if s.Deps, err = r.deps(ctx, s); err != nil {
		s.Err = err
	} else {
		// A name the registry provides is not looked for in the directory.
		given := map[string]bool{}
		for _, d := range regDeps {
			given[d.Name] = true
		}
		deps := append([]compat.Dependency(nil), regDeps...)
		for _, d := range s.Deps {
			if !given[d.Name] {
				deps = append(deps, d)
			}
		}
		s.Deps = deps
		p.parse(s)
	}
	p.name(s)
	return s, nil
}
