package clitest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	regdump "github.com/charter-dev/charter/registry/dump"
)

// TestExportOwnedSharedSchema is fresh-user report 2's H1 through the
// CLI: one schema under two subjects, one owned, used to make export fail
// ("schema 1 differs between two of its versions"). The dump holds the
// schema once and the owner in its records, and an import restores the
// owner, exactly; an empty dump file is named as such.
func TestExportOwnedSharedSchema(t *testing.T) {
	t.Parallel()
	_, src := projecttest.Registry(t)
	_, dst := projecttest.Registry(t)
	dir := t.TempDir()
	dump, again := filepath.Join(dir, "dump.json"), filepath.Join(dir, "again.json")
	run := func(reg string, want int, args ...string) clitest.Result {
		t.Helper()
		r := clitest.Run(t, append([]string{"--registry", reg}, args...)...)
		if r.Code != want {
			t.Fatalf("charter %s: rc %d, want %d\n%s%s", strings.Join(args, " "), r.Code, want, r.Stdout, r.Stderr)
		}
		return r
	}
	run(src, cli.ExitOK, "register", "a-value", schemas+"customer.avsc")
	run(src, cli.ExitOK, "register", "b-value", schemas+"customer.avsc")
	run(src, cli.ExitOK, "owners", "a-value", "--team", "t", "--contact", "c")
	run(src, cli.ExitOK, "export", "--file", dump)
	r := run(dst, cli.ExitOK, "import", dump)
	if r.Stderr != "" {
		t.Errorf("import warnings: %q", r.Stderr)
	}
	if r := run(dst, cli.ExitOK, "owners", "a-value", "-o", "json"); !strings.Contains(r.Stdout, `"team": "t"`) {
		t.Errorf("owner of a-value after import: %s", r.Stdout)
	}
	run(dst, cli.ExitOK, "export", "--file", again)
	a, _ := os.ReadFile(dump)
	d, err := regdump.Read(a)
	if err != nil || len(d.Schemas) != 1 || !slices.ContainsFunc(d.Records, func(r regdump.Record) bool { return r.Kind == "owner" && r.Subject == "a-value" }) {
		t.Errorf("dump %s: %v", a, err)
	}
	// The same dump, but for its time and the import's audit entry.
	b, _ := os.ReadFile(again)
	got, err := regdump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := regdump.Diff(d, got, got.Audit[len(got.Audit)-1].ID); diff != "" {
		t.Errorf("the imported registry exports differently: %s", diff)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(dst, cli.ExitError, "import", empty); !strings.Contains(r.Stderr, "empty.json is empty; want a dump written by charter export") {
		t.Errorf("import of an empty file: %q", r.Stderr)
	}
}
