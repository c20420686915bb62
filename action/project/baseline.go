package project

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/governance"
)

// Baseline supplies the earlier versions of subjects that Check compares
// the working tree with: a git commit, another directory, or the registry.
type Baseline interface {
	// String names the baseline in reports: "git:main", "dir:../old",
	// "registry:http://localhost:8081".
	String() string
	// Load returns the earlier versions of the subjects asked (the
	// working tree's, with the level charter.yaml's mapping or overrides
	// set for each, "" when they set none: a transitive level needs
	// every version, the others the latest) and, for baselines that are
	// whole trees, of every other subject they hold. Subjects the
	// baseline does not know are absent from the result. A baseline
	// that knows the level the registry applies to a subject (the
	// registry's config) returns it in Levels, for every subject asked:
	// it decides, and charter.yaml's level only applies when it is at
	// least as strict. The others leave the level to charter.yaml.
	// Errors are I/O or configuration errors (an unknown git revision,
	// an unreachable registry), never findings.
	Load(ctx context.Context, p *Project, want map[string]compat.Level) (*BaselineSet, error)
}

// BaselineSet is what a Baseline holds for one check.
type BaselineSet struct {
	// Subjects maps a subject to its earlier versions.
	Subjects map[string]*Prior
	// Complete is true when Subjects lists every subject of the baseline
	// (trees), so that subjects missing from the working tree can be
	// reported; false for the registry, which holds other teams'
	// subjects too.
	Complete bool
	// Levels are the levels the registry applies to the subjects asked
	// (its config of each subject, else the global one), whether or not
	// charter.yaml sets one; nil for tree baselines.
	Levels map[string]compat.Level
	// ProtobufProfiles are the Protobuf rule profiles the baseline
	// applies to its Protobuf subjects (the registry's governance policy
	// protobufProfile of each); absent or "" for the default.
	ProtobufProfiles map[string]string
	// States are the governance states of the subjects asked, as the
	// registry holds them (GET /governance/subjects/{s}/state): what the
	// gate judges with. Nil for tree baselines and registries without
	// Charter's governance API: charter.yaml gives the state then.
	States map[string]*governance.SubjectState
}

// Prior is a subject as the baseline has it.
type Prior struct {
	// File is the schema file in a tree baseline, "" for the registry.
	File   string
	Format compat.SchemaType
	// Versions are the subject's earlier versions, oldest first. A tree
	// baseline has one, numbered 0.
	Versions []PriorVersion
}

// PriorVersion is one earlier version of a subject.
type PriorVersion struct {
	// Version is the registry version number, 0 in a tree baseline.
	Version int
	Text    string
	// Schema is the parsed version, nil when Err is set.
	Schema compat.Schema
	Err    error
	// Metadata and RuleSet are the version's data contract as the
	// registry stores it (JSON objects), nil for tree baselines.
	Metadata json.RawMessage
	RuleSet  json.RawMessage
	// Deps are the version's references resolved (registry baselines),
	// dependencies first: a version is the same only with the same ones.
	Deps []compat.Dependency
}

// treeBaseline is a git commit or a directory, mapped with the working
// tree's charter.yaml.
type treeBaseline struct {
	name string
	open func(ctx context.Context, p *Project) (tree, func() error, error)
}

// String names the baseline: "git:REF" or "dir:PATH".
func (b treeBaseline) String() string { return b.name }

// Load maps and parses every schema file of the tree; the first file (in
// path order) of a subject wins.
func (b treeBaseline) Load(ctx context.Context, p *Project, _ map[string]compat.Level) (*BaselineSet, error) {
	t, closeFn, err := b.open(ctx, p)
	if err != nil {
		return nil, err
	}
	schemas, err := p.load(ctx, t)
	if cerr := closeFn(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", b.name, cerr)
	}
	if err != nil {
		return nil, err
	}
	set := &BaselineSet{Subjects: map[string]*Prior{}, Complete: true}
	for _, s := range schemas {
		if s.Subject == "" {
			continue
		}
		if _, dup := set.Subjects[s.Subject]; dup {
			continue // the first file (in path order) wins, as in the working tree
		}
		set.Subjects[s.Subject] = &Prior{
			File:     s.File,
			Format:   s.Format,
			Versions: []PriorVersion{{Text: s.Text, Schema: s.Parsed, Err: s.Err}},
		}
	}
	return set, nil
}

// GitBaseline compares with the project directory as commit rev of its
// git repository has it (any revision git accepts: main, origin/main,
// HEAD~1, a tag or a commit ID). Files are mapped with the working tree's
// charter.yaml. git must be on PATH.
func GitBaseline(rev string) Baseline {
	return treeBaseline{name: "git:" + rev, open: func(ctx context.Context, p *Project) (tree, func() error, error) {
		t, err := openGitTree(ctx, p.Root, rev)
		if err != nil {
			return nil, nil, err
		}
		return t, t.close, nil
	}}
}

// DirBaseline compares with another checkout of the project in dir (the
// directory that corresponds to the project root), mapped with the working
// tree's charter.yaml.
func DirBaseline(dir string) Baseline {
	return treeBaseline{name: "dir:" + dir, open: func(_ context.Context, p *Project) (tree, func() error, error) {
		abs := dir
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(p.Root, dir)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, nil, fmt.Errorf("baseline directory: %w", err)
		}
		if !fi.IsDir() {
			return nil, nil, fmt.Errorf("baseline %s is not a directory", abs)
		}
		return dirTree{root: abs}, func() error { return nil }, nil
	}}
}

// ParseAgainst reads an --against value: "git:REF" or "dir:PATH". A
// relative PATH is relative to the project root. ("registry" is handled
// by the caller, which owns the client.)
func ParseAgainst(s string) (Baseline, error) {
	kind, arg, ok := strings.Cut(s, ":")
	switch {
	case ok && kind == "git" && arg != "":
		return GitBaseline(arg), nil
	case ok && kind == "dir" && arg != "":
		return DirBaseline(arg), nil
	}
	return nil, fmt.Errorf("invalid --against %q: want git:REF (git:main, git:HEAD~1), dir:PATH or registry", s)
}
