package project_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/registry/client"
)

// benchFiles is the number of schema files per format in the benchmark
// repository (3 × 100 = 300 files).
const benchFiles = 100

// writeBenchTree writes the generated benchmark project: benchFiles Avro,
// Protobuf and JSON Schema files of 12 fields each. In the head version a
// third of each format breaks compatibility, a third changes compatibly
// and a third is unchanged.
func writeBenchTree(tb testing.TB, dir string, head bool) {
	tb.Helper()
	files := map[string]string{"charter.yaml": `version: 1
schemas:
  - files: "avro/*.avsc"
  - files: "proto/*.proto"
  - files: "json/*.json"
`}
	for i := range benchFiles {
		change := -1
		if head {
			change = i % 3 // 0 breaking, 1 compatible, 2 unchanged
		}
		files[fmt.Sprintf("avro/rec%03d.avsc", i)] = benchAvro(i, change)
		files[fmt.Sprintf("proto/msg%03d.proto", i)] = benchProto(i, change)
		files[fmt.Sprintf("json/obj%03d.json", i)] = benchJSON(i, change)
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func benchAvro(i, change int) string {
	var fields []string
	for f := range 12 {
		fields = append(fields, fmt.Sprintf(`    {"name": "f%d", "type": "%s", "doc": "field %d of record %d"}`, f, []string{"string", "long", "double", "boolean"}[f%4], f, i))
	}
	switch change {
	case 0:
		fields = append(fields, `    {"name": "added", "type": "string"}`)
	case 1:
		fields = append(fields, `    {"name": "added", "type": ["null", "string"], "default": null}`)
	}
	return fmt.Sprintf("{\n  \"type\": \"record\",\n  \"name\": \"Rec%d\",\n  \"namespace\": \"bench.avro\",\n  \"fields\": [\n%s\n  ]\n}\n", i, strings.Join(fields, ",\n"))
}

func benchProto(i, change int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\npackage bench.proto%d;\n\nmessage Msg%d {\n", i, i)
	for f := range 12 {
		typ := []string{"string", "int64", "double", "bool"}[f%4]
		if change == 0 && f == 0 {
			typ = "int64"
		}
		fmt.Fprintf(&b, "  %s f%d = %d;\n", typ, f, f+1)
	}
	if change == 1 {
		b.WriteString("  string added = 13;\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func benchJSON(i, change int) string {
	var props []string
	for f := range 12 {
		if change == 0 && f == 11 {
			continue
		}
		props = append(props, fmt.Sprintf(`    "f%d": {"type": "%s"}`, f, []string{"string", "integer", "number", "boolean"}[f%4]))
	}
	if change == 1 {
		props = append(props, `    "added": {"type": "string"}`)
	}
	return fmt.Sprintf("{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n  \"title\": \"Obj%d\",\n  \"type\": \"object\",\n  \"properties\": {\n%s\n  },\n  \"additionalProperties\": false\n}\n", i, strings.Join(props, ",\n"))
}

// benchRepo is a git repository of two commits: the base and head trees.
func benchRepo(tb testing.TB) string {
	tb.Helper()
	base, head := tb.TempDir(), tb.TempDir()
	writeBenchTree(tb, base, false)
	writeBenchTree(tb, head, true)
	return projecttest.GitRepo(tb, base, head)
}

func checkBenchResult(tb testing.TB, res *project.Result) {
	tb.Helper()
	if len(res.Subjects) != 3*benchFiles {
		tb.Fatalf("%d subjects, want %d", len(res.Subjects), 3*benchFiles)
	}
	// One finding per breaking file: a third of each format.
	if n := len(res.Findings); n != 3*((benchFiles+2)/3) {
		tb.Fatalf("%d findings, want %d", n, 3*((benchFiles+2)/3))
	}
}

// TestBenchRepository checks the generated repository's verdicts, so that
// the benchmarks measure what they claim.
func TestBenchRepository(t *testing.T) {
	t.Parallel()
	repo := benchRepo(t)
	res, err := project.Check(context.Background(), mustFind(t, repo), project.Options{Baseline: project.GitBaseline("HEAD~1")})
	if err != nil {
		t.Fatal(err)
	}
	checkBenchResult(t, res)
	rules := map[string]int{}
	for _, f := range res.Findings {
		rules[f.RuleID]++
	}
	if rules["AVRO_READER_FIELD_MISSING_DEFAULT"] != 34 || rules["PROTO_FIELD_SCALAR_KIND_CHANGED"] != 34 || rules["JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"] != 34 {
		t.Errorf("findings by rule: %v", rules)
	}
}

// TestWriteBenchRepository writes the benchmark repository to
// $CHARTER_BENCH_REPO for bench.sh, which times the charter binary.
func TestWriteBenchRepository(t *testing.T) {
	dir := os.Getenv("CHARTER_BENCH_REPO")
	if dir == "" {
		t.Skip("set CHARTER_BENCH_REPO to write the benchmark repository (bench.sh does)")
	}
	repo := benchRepo(t)
	projecttest.CopyTree(t, repo, dir)
}

// BenchmarkCheckGit300 is `charter check --against git:HEAD~1` over 300
// schema files (100 per format): listing and reading both trees through
// git, parsing 600 schemas and checking 300 subjects.
func BenchmarkCheckGit300(b *testing.B) {
	repo := benchRepo(b)
	p := mustFind(b, repo)
	ctx := context.Background()
	for b.Loop() {
		res, err := project.Check(ctx, p, project.Options{Baseline: project.GitBaseline("HEAD~1")})
		if err != nil {
			b.Fatal(err)
		}
		checkBenchResult(b, res)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(3*benchFiles), "µs/file")
}

// BenchmarkCheckRegistry300 is `charter check` against a local registry
// (the real handler over SQLite, in process) holding the base versions of
// the 300 subjects.
func BenchmarkCheckRegistry300(b *testing.B) {
	base, head := b.TempDir(), b.TempDir()
	writeBenchTree(b, base, false)
	writeBenchTree(b, head, true)
	c, url := newRegistry(b)
	pb := mustFind(b, base)
	schemas, err := pb.Schemas(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range schemas {
		if _, err := c.Register(context.Background(), s.Subject, client.NewSchema{Type: s.Format, Text: s.Text}); err != nil {
			b.Fatalf("register %s: %v", s.Subject, err)
		}
	}
	p := mustFind(b, head)
	ctx := context.Background()
	for b.Loop() {
		res, err := project.Check(ctx, p, project.Options{Baseline: project.RegistryBaseline(c, url)})
		if err != nil {
			b.Fatal(err)
		}
		checkBenchResult(b, res)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(3*benchFiles), "µs/file")
}
