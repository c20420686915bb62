package project

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
)

// Schemas loads the working tree's schema files as Check sees them: mapped,
// parsed and named (Err set on the files that fail).
func (p *Project) Schemas(ctx context.Context) ([]*Schema, error) {
	return p.load(ctx, dirTree{root: p.Root})
}

// RepoPrefix returns the project root relative to the root of its git work
// tree, with a trailing slash ("services/orders/"), or "" when the project
// is the repository root or not in a git work tree. CI annotations want
// paths relative to the repository.
func RepoPrefix(ctx context.Context, root string) string {
	out, err := runGit(ctx, root, "rev-parse", "--show-prefix")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// InitOptions tune Starter.
type InitOptions struct {
	// Registry is written as the registry URL when not "".
	Registry string
	// Level and Strategy are written as the defaults ("" for BACKWARD
	// and topic-value).
	Level    compat.Level
	Strategy Strategy
}

// Found is a schema file Starter found.
type Found struct {
	File   string
	Format compat.SchemaType
}

// Starter scans dir for schema files (by their extension in compat/formats:
// .avsc, .proto, and .json files that
// look like JSON Schemas: a "$schema" keyword, or "type"/"properties"/
// "$defs"/"definitions" at the top of an object) and returns a commented
// charter.yaml that maps them, one entry per directory and format, and
// the files it found, sorted.
func Starter(ctx context.Context, dir string, o InitOptions) ([]byte, []Found, error) {
	t := dirTree{root: dir}
	files, err := t.list(ctx)
	if err != nil {
		return nil, nil, err
	}
	var found []Found
	jsonInDir := map[string]int{} // .json files per directory, schemas or not
	for _, f := range files {
		switch formats.OfFile(f) {
		case "":
		case compat.JSON:
			jsonInDir[path.Dir(f)]++
			b, err := t.read(ctx, f)
			if err == nil && looksLikeJSONSchema(b) {
				found = append(found, Found{f, compat.JSON})
			}
		default:
			found = append(found, Found{f, formats.OfFile(f)})
		}
	}
	// One entry per (directory, format).
	type key struct {
		dir    string
		format compat.SchemaType
	}
	byKey := map[key][]string{}
	var keys []key
	for _, f := range found {
		k := key{path.Dir(f.File), f.Format}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], f.File)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].format != keys[j].format {
			return formatRank(keys[i].format) < formatRank(keys[j].format)
		}
		return keys[i].dir < keys[j].dir
	})
	importRoots, err := protoImportRoots(ctx, t, found)
	if err != nil {
		return nil, nil, err
	}

	level, strategy := o.Level, o.Strategy
	if level == "" {
		level = compat.DefaultLevel
	}
	if strategy == "" {
		strategy = TopicValue
	}
	var b strings.Builder
	b.WriteString("# charter.yaml: which files of this repository are schemas, which registry\n")
	b.WriteString("# subject each one is, and how `charter check` judges their changes.\n")
	fmt.Fprintf(&b, "# Written by `charter init` from %s; edit freely.\n", rule.Plural(len(found), "schema file"))
	b.WriteString("# Reference: the JSON Schema charter.schema.json in Charter's action/project package.\n")
	b.WriteString("version: 1\n\n")
	b.WriteString("# The registry `charter check` compares with when --against is not given\n")
	b.WriteString("# (--registry and CHARTER_REGISTRY_URL override it).\n")
	if o.Registry != "" {
		fmt.Fprintf(&b, "registry: %s\n\n", yamlString(o.Registry))
	} else {
		b.WriteString("# registry: http://localhost:8081\n\n")
	}
	b.WriteString("defaults:\n")
	b.WriteString("  # Compatibility level: NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD,\n")
	b.WriteString("  # FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE. Against a registry, the\n")
	b.WriteString("  # registry's level for each subject wins over this default; levels set in\n")
	b.WriteString("  # schemas entries or overrides apply there only when at least as strict.\n")
	fmt.Fprintf(&b, "  level: %s\n", level)
	b.WriteString("  # Subject naming: topic-value (\"<topic>-value\"), topic-key (\"<topic>-key\"),\n")
	b.WriteString("  # record (the record's full name) or topic-record (\"<topic>-<record>\").\n")
	b.WriteString("  # The topic is the file name without its extension unless an entry sets topic.\n")
	fmt.Fprintf(&b, "  strategy: %s\n", strategy)
	b.WriteString("  # Severity by rule ID or pattern (error, warning, notice, off); see `charter rules`.\n")
	b.WriteString("  # severity:\n  #   SUBJECT_ADDED: off\n\n")
	if slices.ContainsFunc(found, func(f Found) bool { return f.Format == compat.Protobuf }) {
		b.WriteString("# Protobuf rules: CONFLUENT (Confluent Schema Registry's verdicts, the default),\n")
		b.WriteString("# WIRE or WIRE_JSON (buf's breaking-change categories); `charter rules` lists\n")
		b.WriteString("# each rule's profiles. Entries may set their own; against a registry, its\n")
		b.WriteString("# governance policy (protobufProfile) wins over this one.\n")
		b.WriteString("# protobuf_profile: CONFLUENT\n\n")
	}
	b.WriteString("# Which files are schemas: a file belongs to the first entry whose files match.\n")
	b.WriteString("# Globs: * ? ** [abc] {a,b}. Entries may set format, strategy, topic, subject,\n")
	b.WriteString("# level, severity and (Protobuf) import_paths and protobuf_profile.\n")
	if len(keys) == 0 {
		b.WriteString("schemas: []\n")
		b.WriteString("# schemas:\n#   - files: \"schemas/**/*.avsc\"\n")
	} else {
		b.WriteString("schemas:\n")
	}
	for _, k := range keys {
		files := byKey[k]
		e, _ := formats.ByType(k.format)
		glob := path.Join(k.dir, "*"+e.Extensions[0])
		fmt.Fprintf(&b, "  # %s: %s\n", e.Title, summarizeFiles(files))
		// A directory whose .json files are not all schemas lists them.
		if k.format == compat.JSON && len(files) != jsonInDir[k.dir] {
			b.WriteString("  - files:\n")
			for _, f := range files {
				fmt.Fprintf(&b, "      - %s\n", yamlString(f))
			}
		} else {
			fmt.Fprintf(&b, "  - files: %s\n", yamlString(glob))
		}
		if k.format == compat.Protobuf {
			if roots := importRoots[k.dir]; len(roots) > 0 {
				fmt.Fprintf(&b, "    import_paths: [%s]\n", strings.Join(quoteAll(roots), ", "))
			}
		}
	}
	b.WriteString("\n# Per-subject level and severities (subject names or patterns with * and ?).\n")
	b.WriteString("# overrides:\n#   - subject: \"payments-*\"\n#     level: FULL_TRANSITIVE\n")
	b.WriteString("#     severity:\n#       AVRO_READER_FIELD_MISSING_DEFAULT: warning\n\n")
	b.WriteString("# Files never read as schemas.\n# exclude:\n#   - \"**/testdata/**\"\n")
	return []byte(b.String()), found, nil
}

// formatRank orders formats as compat/formats lists them.
func formatRank(t compat.SchemaType) int {
	return slices.IndexFunc(formats.All(), func(e formats.Entry) bool { return e.Type == t })
}

func summarizeFiles(files []string) string {
	names := make([]string, 0, 3)
	for i, f := range files {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(files)-3))
			break
		}
		names = append(names, path.Base(f))
	}
	return strings.Join(names, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = yamlString(s)
	}
	return out
}

// yamlString quotes s as a YAML double-quoted scalar.
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// looksLikeJSONSchema tells JSON Schemas from other JSON files.
func looksLikeJSONSchema(b []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	if s, ok := top["$schema"]; ok {
		return strings.Contains(string(s), "json-schema")
	}
	if _, ok := top["properties"]; ok {
		_, hasType := top["type"]
		return hasType
	}
	_, defs := top["$defs"]
	_, definitions := top["definitions"]
	return defs || definitions
}

var protoPackageRe = regexp.MustCompile(`(?m)^\s*package\s+([A-Za-z_][A-Za-z0-9_.]*)\s*;`)

// protoImportRoots guesses, per directory of .proto files, the import
// path under which imports resolve: a file of package a.b.c in x/a/b/c/
// is imported as "a/b/c/f.proto" from root x.
func protoImportRoots(ctx context.Context, t dirTree, found []Found) (map[string][]string, error) {
	out := map[string][]string{}
	for _, f := range found {
		if f.Format != compat.Protobuf {
			continue
		}
		b, err := t.read(ctx, f.File)
		if err != nil {
			return nil, err
		}
		m := protoPackageRe.FindSubmatch(b)
		if m == nil {
			continue
		}
		dir := path.Dir(f.File)
		pkgDir := strings.ReplaceAll(string(m[1]), ".", "/")
		var root string
		switch {
		case dir == pkgDir:
			continue // imports resolve from the project root
		case strings.HasSuffix(dir, "/"+pkgDir):
			root = strings.TrimSuffix(dir, "/"+pkgDir)
		default:
			continue
		}
		if !contains(out[dir], root) {
			out[dir] = append(out[dir], root)
		}
	}
	return out, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
