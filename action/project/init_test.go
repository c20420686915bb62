package project_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/golden/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func TestStarter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	projecttestCopy(t, "testdata/sample/head", dir)
	if err := os.Remove(filepath.Join(dir, "charter.yaml")); err != nil {
		t.Fatal(err)
	}
	// Files that are not JSON Schemas stay out; a directory with both
	// lists its schema files one by one.
	writeFiles(t, dir, map[string]string{
		"package.json":               `{"name": "x", "version": "1.0.0"}`,
		"jsonschema/fixtures.json":   `[1, 2, 3]`,
		"config/settings.json":       `{"type": "object"}`,
		"node_modules/dep/x.avsc":    `{"type":"string"}`,
		"protos/top.proto":           "syntax = \"proto3\";\nmessage Top { string s = 1; }\n",
		".hidden/secret.avsc":        `{"type":"string"}`,
		"jsonschema/defs-only.json":  `{"$defs": {"a": {"type": "string"}}}`,
		"jsonschema/withschema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}`,
	})
	text, found, err := project.Starter(context.Background(), dir, project.InitOptions{Registry: "http://localhost:8081"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "init-sample.yaml", text)
	var files []string
	for _, f := range found {
		files = append(files, f.File+":"+string(f.Format))
	}
	want := "jsonschema/defs-only.json:JSON jsonschema/money.json:JSON jsonschema/payment.json:JSON jsonschema/withschema.json:JSON " +
		"proto/acme/shipping/v1/address.proto:PROTOBUF proto/acme/shipping/v1/shipment.proto:PROTOBUF protos/top.proto:PROTOBUF " +
		"schemas/avro/customer.avsc:AVRO schemas/avro/orders.avsc:AVRO schemas/avro/refunds.avsc:AVRO"
	if got := strings.Join(files, " "); got != want {
		t.Errorf("found:\n%s\nwant:\n%s", got, want)
	}
	// The starter loads and maps every file it found, and each parses.
	if err := os.WriteFile(filepath.Join(dir, "charter.yaml"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	p := mustFind(t, dir)
	schemas, err := p.Schemas(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, s := range schemas {
		if s.Err != nil {
			t.Errorf("%s: %v", s.File, s.Err)
		}
		subjects = append(subjects, s.Subject)
	}
	wantSubjects := "defs-only-value money-value payment-value withschema-value address-value shipment-value top-value customer-value orders-value refunds-value"
	if got := strings.Join(subjects, " "); got != wantSubjects {
		t.Errorf("subjects:\n%s\nwant:\n%s", got, wantSubjects)
	}
	if p.Config.Registry != "http://localhost:8081" {
		t.Errorf("registry %q", p.Config.Registry)
	}
}

func TestStarterEmpty(t *testing.T) {
	t.Parallel()
	text, found, err := project.Starter(context.Background(), t.TempDir(), project.InitOptions{})
	if err != nil || len(found) != 0 {
		t.Fatalf("Starter on an empty dir: %v, %v", found, err)
	}
	if _, err := project.ParseConfig("charter.yaml", text); err != nil {
		t.Errorf("empty starter does not load: %v\n%s", err, text)
	}
}

func projecttestCopy(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFiles(t, dst, map[string]string{filepath.ToSlash(rel): string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
