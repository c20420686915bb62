package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/policy"
)

// DiffOptions tune DiffFiles.
type DiffOptions struct {
	// Level is the compatibility level to judge at; "" means FULL (both
	// directions, so every rule that any level could apply is reported).
	Level compat.Level
	// Format is the schema type of both files; "" means by extension.
	Format compat.SchemaType
	// Subject names the subject in the result; "" means "<name>-value"
	// after the second file.
	Subject string
	// ImportPaths are the directories Protobuf imports resolve against;
	// default each file's own directory.
	ImportPaths []string
}

// DiffFiles compares two schema files rule by rule: the second (next) as
// a new version of the first (previous), at opts.Level. References are
// resolved next to each file (Protobuf imports, JSON Schema $ref files,
// Avro named types in sibling .avsc files). The result has one subject;
// its Against is "file:<previous>". Errors: unreadable files; a file that
// does not parse is reported as a SCHEMA_INVALID finding.
func DiffFiles(ctx context.Context, previous, next string, opts DiffOptions) (*Result, error) {
	level := opts.Level
	if level == "" {
		level = compat.Full
	}
	prev, err := loadFile(ctx, previous, opts)
	if err != nil {
		return nil, err
	}
	cur, err := loadFile(ctx, next, opts)
	if err != nil {
		return nil, err
	}
	subject := opts.Subject
	if subject == "" {
		subject = cur.Subject
	}
	cur.File = filepath.ToSlash(next)
	p := &Project{Root: filepath.Dir(next), Config: &Config{}, Formats: DefaultFormats()}
	s := &Subject{Name: subject, Level: level, Current: cur}
	pv := PriorVersion{Text: prev.Text, Schema: prev.Parsed, Err: prev.Err}
	s.Prior = &Prior{File: filepath.ToSlash(previous), Format: prev.Format, Versions: []PriorVersion{pv}}
	c := &checker{p: p, against: "file:" + filepath.ToSlash(previous), bySubject: map[string]*Subject{subject: s}}
	out := c.compare(s)
	res := &Result{Against: c.against, Subjects: []SubjectResult{{
		Subject: subject, File: cur.File, Format: cur.Format, Level: level, Status: out.status, Compared: out.compared,
	}}}
	res.Findings = out.findings
	if res.Findings == nil {
		res.Findings = []policy.Finding{}
	}
	sortFindings(res.Findings)
	countFindings(res)
	return res, nil
}

// loadFile reads and parses one schema file with references resolved in
// its directory.
func loadFile(ctx context.Context, file string, opts DiffOptions) (*Schema, error) {
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
		p.parse(s)
	}
	p.name(s)
	return s, nil
}
