package project

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/protobuf"
)

// Schema is one schema file of a tree, mapped to its subject and parsed.
type Schema struct {
	// File is the slash path relative to the project root.
	File string
	// Subject is the registry subject the file is, "" when it could not
	// be named (a record strategy over an unparsable file).
	Subject string
	Format  compat.SchemaType
	Text    string
	// Deps are the files the schema refers to (Protobuf imports, JSON
	// Schema $ref files, Avro named types defined in other .avsc files),
	// dependencies first.
	Deps []compat.Dependency
	// Parsed is the parsed schema, nil when Err is set.
	Parsed compat.Schema
	// Err says why the file could not be parsed or named; ErrLine is its
	// 1-based line when the parser gave one.
	Err     error
	ErrLine int

	mapping *Mapping
}

// formatOf returns the format of file under m: the mapping's, else by
// extension (compat/formats); "" when neither says.
func formatOf(m *Mapping, file string) compat.SchemaType {
	if m.format != "" {
		return m.format
	}
	return formats.OfFile(file)
}

// load reads every file of t that a mapping claims, resolves its
// dependencies within t, parses it and names its subject. The result is
// sorted by file. Only listing the tree fails the call; a file that
// cannot be read or parsed has Err set.
func (p *Project) load(ctx context.Context, t tree) ([]*Schema, error) {
	files, err := t.list(ctx)
	if err != nil {
		return nil, err
	}
	present := make(map[string]bool, len(files))
	for _, f := range files {
		present[f] = true
	}
	r := &resolver{t: t, exists: func(f string) bool { return present[f] }, texts: map[string]string{}, files: files}
	var out []*Schema
	for _, f := range files {
		m := p.Config.mappingFor(f)
		if m == nil {
			continue
		}
		s := &Schema{File: f, mapping: m, Format: formatOf(m, f)}
		out = append(out, s)
		if s.Format == "" {
			s.Err = fmt.Errorf("cannot tell the format of %s from its extension; set format in its charter.yaml entry", f)
			continue
		}
		if _, ok := p.Formats[s.Format]; !ok {
			s.Err = fmt.Errorf("no %s format in this build", s.Format)
			continue
		}
		text, err := r.text(ctx, f)
		if err != nil {
			s.Err = err
			continue
		}
		s.Text = text
		if s.Deps, err = r.deps(ctx, s); err != nil {
			s.Err = err
		}
	}
	p.parseAll(ctx, out)
	for _, s := range out {
		p.name(s)
	}
	return out, nil
}

// parseAll parses the schemas on every CPU.
func (p *Project) parseAll(ctx context.Context, schemas []*Schema) {
	work := make(chan *Schema)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				p.parse(s)
			}
		}()
	}
	for _, s := range schemas {
		if s.Err != nil || ctx.Err() != nil {
			continue
		}
		work <- s
	}
	close(work)
	wg.Wait()
}

func (p *Project) parse(s *Schema) {
	parsed, err := parseSafely(p.Formats[s.Format], s.Text, s.Deps)
	if err != nil {
		s.Err = err
		s.ErrLine = errorLine(err.Error())
		return
	}
	s.Parsed = parsed
}

// parseSafely turns a parser panic into an error: bad input must never
// crash the gate.
func parseSafely(f compat.Format, text string, deps []compat.Dependency) (s compat.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid %s schema: the parser failed (%v)", f.Type(), r)
		}
	}()
	return f.Parse(text, deps)
}

var (
	// "schema.proto:5:1: syntax error" (protocompile).
	fileLineRe = regexp.MustCompile(`\.proto:(\d+):\d+:`)
	// "invalid JSON at line 2, column 15".
	atLineRe = regexp.MustCompile(`\bline (\d+)\b`)
)

// errorLine finds the line a parse error names, 0 when none.
func errorLine(msg string) int {
	for _, re := range []*regexp.Regexp{fileLineRe, atLineRe} {
		if m := re.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	return 0
}

// name sets the subject of s from its mapping.
func (p *Project) name(s *Schema) {
	m := s.mapping
	base := path.Base(s.File)
	vars := map[string]string{
		"name": strings.TrimSuffix(base, path.Ext(base)),
		"dir":  path.Base(path.Dir(s.File)),
	}
	if vars["dir"] == "." {
		vars["dir"] = path.Base(p.Root)
	}
	vars["topic"] = expand(m.Topic, vars)
	tmpl := m.Subject
	if tmpl == "" {
		switch m.Strategy {
		case TopicKey:
			tmpl = "{topic}-key"
		case Record:
			tmpl = "{record}"
		case TopicRecord:
			tmpl = "{topic}-{record}"
		default:
			tmpl = "{topic}-value"
		}
	}
	if strings.Contains(tmpl, "{record}") {
		rec, err := recordName(s)
		if err != nil {
			if s.Err == nil {
				s.Err = fmt.Errorf("name the subject of %s: %w", s.File, err)
			}
			return
		}
		vars["record"] = rec
	}
	s.Subject = expand(tmpl, vars)
}

func expand(tmpl string, vars map[string]string) string {
	for k, v := range vars {
		tmpl = strings.ReplaceAll(tmpl, "{"+k+"}", v)
	}
	return tmpl
}

// recordName is the name the record strategies use: the Avro top-level
// type's full name, the first Protobuf message's full name, the JSON
// Schema's title (as Confluent's serializers name them).
func recordName(s *Schema) (string, error) {
	switch s.Format {
	case compat.Avro:
		var top struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		}
		if err := json.Unmarshal([]byte(s.Text), &top); err != nil || top.Name == "" {
			return "", fmt.Errorf("the record strategy needs a named top-level Avro type")
		}
		if strings.Contains(top.Name, ".") || top.Namespace == "" {
			return top.Name, nil
		}
		return top.Namespace + "." + top.Name, nil
	case compat.Protobuf:
		ps, ok := s.Parsed.(*protobuf.Schema)
		if !ok || ps.Descriptor().Messages().Len() == 0 {
			return "", fmt.Errorf("the record strategy needs a parsable .proto file with a message")
		}
		return string(ps.Descriptor().Messages().Get(0).FullName()), nil
	case compat.JSON:
		var top struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal([]byte(s.Text), &top); err != nil || top.Title == "" {
			return "", fmt.Errorf("the record strategy needs a JSON Schema with a title")
		}
		return top.Title, nil
	}
	return "", fmt.Errorf("no record name for format %s", s.Format)
}

// resolver reads files of one tree and finds the files a schema depends on.
type resolver struct {
	t      tree
	exists func(file string) bool
	// files are the candidates for Avro named types, in path order.
	files   []string
	texts   map[string]string
	avroIdx map[string]string // Avro full name → defining file
}

func (r *resolver) text(ctx context.Context, f string) (string, error) {
	if t, ok := r.texts[f]; ok {
		return t, nil
	}
	b, err := r.t.read(ctx, f)
	if err != nil {
		return "", err
	}
	r.texts[f] = string(b)
	return string(b), nil
}

// deps returns s's dependencies in dependency order.
func (r *resolver) deps(ctx context.Context, s *Schema) ([]compat.Dependency, error) {
	var out []compat.Dependency
	done := map[string]bool{s.File: true}
	var visit func(file, text string, depth int) error
	visit = func(file, text string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("references of %s nest deeper than 64", s.File)
		}
		refs, err := r.refs(ctx, s, file, text)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if done[ref.file] {
				continue
			}
			done[ref.file] = true
			t, err := r.text(ctx, ref.file)
			if err != nil {
				return err
			}
			if err := visit(ref.file, t, depth+1); err != nil {
				return err
			}
			out = append(out, compat.Dependency{Name: ref.name, Text: t})
		}
		return nil
	}
	if err := visit(s.File, s.Text, 0); err != nil {
		return nil, fmt.Errorf("resolve references of %s: %w", s.File, err)
	}
	return out, nil
}

type ref struct{ name, file string }

var protoImportRe = regexp.MustCompile(`(?m)^\s*import\s+(?:(?:public|weak)\s+)?"([^"]+)"\s*;`)

// refs lists the files in the tree that one file (s itself or one of its
// dependencies) refers to directly.
func (r *resolver) refs(ctx context.Context, s *Schema, file, text string) ([]ref, error) {
	var out []ref
	switch s.Format {
	case compat.Protobuf:
		roots := s.mapping.ImportPaths
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, m := range protoImportRe.FindAllStringSubmatch(text, -1) {
			for _, root := range roots {
				cand := path.Clean(path.Join(root, m[1]))
				if r.exists(cand) {
					out = append(out, ref{name: m[1], file: cand})
					break
				}
			}
		}
	case compat.JSON:
		var doc any
		if json.Unmarshal([]byte(text), &doc) != nil {
			return nil, nil // the parser reports it
		}
		seen := map[string]bool{}
		walkJSON(doc, func(k string, v any) {
			u, ok := v.(string)
			if k != "$ref" || !ok {
				return
			}
			u, _, _ = strings.Cut(u, "#")
			if u == "" || strings.Contains(u, "://") || strings.HasPrefix(u, "/") || seen[u] {
				return
			}
			seen[u] = true
			cand := path.Clean(path.Join(path.Dir(file), u))
			if r.exists(cand) {
				out = append(out, ref{name: u, file: cand})
			}
		})
		sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	case compat.Avro:
		defined, used := avroNames(text)
		var missing []string
		for n := range used {
			if !defined[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 {
			return nil, nil
		}
		sort.Strings(missing)
		idx, err := r.avroIndex(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range missing {
			if f, ok := idx[n]; ok && f != file {
				out = append(out, ref{name: n, file: f})
			}
		}
	}
	return out, nil
}

func walkJSON(v any, fn func(key string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fn(k, x[k])
			walkJSON(x[k], fn)
		}
	case []any:
		for _, e := range x {
			walkJSON(e, fn)
		}
	}
}

// avroIndex maps the full names of the named types that .avsc files of the
// tree define to the first file (in path order) defining each.
func (r *resolver) avroIndex(ctx context.Context) (map[string]string, error) {
	if r.avroIdx != nil {
		return r.avroIdx, nil
	}
	r.avroIdx = map[string]string{}
	for _, f := range r.files {
		if formats.OfFile(f) != compat.Avro {
			continue
		}
		t, err := r.text(ctx, f)
		if err != nil {
			return nil, err
		}
		defined, _ := avroNames(t)
		for n := range defined {
			if _, ok := r.avroIdx[n]; !ok {
				r.avroIdx[n] = f
			}
		}
	}
	return r.avroIdx, nil
}

var avroBuiltin = map[string]bool{
	"null": true, "boolean": true, "int": true, "long": true, "float": true, "double": true,
	"bytes": true, "string": true, "record": true, "error": true, "enum": true, "fixed": true,
	"array": true, "map": true,
}

// avroNames returns the full names of the named types an Avro schema text
// defines and of those it uses by name. Invalid JSON gives nothing.
func avroNames(text string) (defined, used map[string]bool) {
	defined, used = map[string]bool{}, map[string]bool{}
	var doc any
	if json.Unmarshal([]byte(text), &doc) != nil {
		return defined, used
	}
	full := func(name, ns string) string {
		if strings.Contains(name, ".") || ns == "" {
			return name
		}
		return ns + "." + name
	}
	var typ func(v any, ns string)
	typ = func(v any, ns string) {
		switch x := v.(type) {
		case string:
			if !avroBuiltin[x] {
				used[full(x, ns)] = true
			}
		case []any:
			for _, b := range x {
				typ(b, ns)
			}
		case map[string]any:
			t, _ := x["type"].(string)
			switch t {
			case "record", "error", "enum", "fixed":
				name, _ := x["name"].(string)
				if n, ok := x["namespace"].(string); ok {
					ns = n
				}
				fn := full(name, ns)
				if i := strings.LastIndexByte(fn, '.'); i >= 0 {
					ns = fn[:i]
				}
				defined[fn] = true
				if fields, ok := x["fields"].([]any); ok {
					for _, f := range fields {
						if fm, ok := f.(map[string]any); ok {
							typ(fm["type"], ns)
						}
					}
				}
			case "array":
				typ(x["items"], ns)
			case "map":
				typ(x["values"], ns)
			default:
				typ(x["type"], ns)
			}
		}
	}
	typ(doc, "")
	return defined, used
}
