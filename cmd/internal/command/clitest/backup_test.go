package clitest_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	regdump "github.com/charter-dev/charter/registry/dump"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// backupDB returns a new, empty database of kind ("sqlite": a file in
// tb's temporary directory; "postgres": a schema of its own in
// REGISTRY_TEST_POSTGRES_DSN's database, skipping without one) as charter
// serve --db and charter migrate take it.
func backupDB(tb testing.TB, kind string) string {
	tb.Helper()
	if kind == "postgres" {
		return pgtest.DSN(tb)
	}
	return filepath.Join(tb.TempDir(), "charter.db")
}

// serveDB runs the registry over db with a clock on Day0 and returns its
// URL and the clock. The server stops when the test ends.
func serveDB(tb testing.TB, db string) (string, *clitest.Clock) {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := serve.OpenDatabase(tb.Context(), db, log)
	if err != nil {
		tb.Fatal(err)
	}
	clk := &clitest.Clock{}
	clk.Day(0)
	svc := registry.NewService(st, formats.Formats(), registry.WithLogger(log), registry.WithClock(clk.Now))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	tb.Cleanup(func() {
		srv.Close()
		_ = st.Close()
	})
	return srv.URL, clk
}

// backupDay is the day the backups are made: five days before the
// worked example's carrier_code expires (day 90).
const backupDay = 85

// playBackupExample plays the worked example of issue 10 §3 up to
// backupDay (carrier_code deprecated on day 0 for 90 days, read by three
// published pacts and two declared consumers, seven other declared
// consumers; pact-a extended on day 80, pact-b on day 85), with an owner,
// a subject policy, tags and a dismissal, plus what a registry holds
// beside: a removed field, a soft-deleted version, a permanently deleted
// subject (so the ID mark is above every stored ID), a producer, the
// config of a subject without versions, a subject mode and the global
// config. It leaves the clock on backupDay.
func playBackupExample(t *testing.T, c *client.Client, clk *clitest.Clock) {
	t.Helper()
	steps := []step{{Day: 0, Owner: "logistics"}}
	for _, s := range workedSteps() {
		if s.Day <= backupDay {
			steps = append(steps, s)
		}
	}
	steps = append(steps,
		step{Day: 1, Policy: map[string]string{"OWNER_MISSING": "warning"}},
		step{Day: 2, Tags: map[string][]string{".id": {"KEY"}}},
		step{Day: 3, Dismiss: ".carrier"},
		step{Day: 85, Extend: "pact-b", Days: 30, Reads: []string{".carrier_code"}},
	)
	play(t, c, clk, compat.Avro, steps)
	ctx := t.Context()
	clk.Day(4)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err := c.Register(ctx, "items-value", client.NewSchema{Text: schemaOf("AVRO", "sku:string, note:string")})
	must("register items v1", err)
	_, err = c.Register(ctx, "items-value", client.NewSchema{Text: schemaOf("AVRO", "sku:string")})
	must("register items v2 (removes note)", err)
	_, err = c.DeleteVersion(ctx, "items-value", 1, false)
	must("soft delete", err)
	_, err = c.Register(ctx, "gone-value", client.NewSchema{Text: schemaOf("AVRO", "x:long")})
	must("register gone", err)
	_, err = c.DeleteSubject(ctx, "gone-value", false)
	must("soft delete gone", err)
	_, err = c.DeleteSubject(ctx, "gone-value", true)
	must("hard delete gone", err)
	_, err = c.SetProducer(ctx, diffSubject, "fulfillment", nil)
	must("producer", err)
	none, full := compat.Level("NONE"), compat.Level("FULL")
	_, err = c.SetConfig(ctx, "later-value", client.ConfigUpdate{Compatibility: &none})
	must("config of a subject without versions", err)
	_, err = c.SetConfig(ctx, "", client.ConfigUpdate{Compatibility: &full})
	must("global config", err)
	_, err = c.SetMode(ctx, "items-value", "READONLY", false)
	must("mode", err)
	clk.Day(backupDay)
}

func runOK(t *testing.T, args ...string) clitest.Result {
	t.Helper()
	r := clitest.Run(t, args...)
	if r.Code != cli.ExitOK {
		t.Fatalf("charter %s: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// checkRestored: the restored registry at dst answers as the source at
// src: the deprecation countdown (5 days left on day 85, not the 90 a
// restart would show) with its extensions, the calendar, the owner and
// the changelog; and its export is the source's byte for byte, plus the
// one audit entry of the import, by actor.
func checkRestored(t *testing.T, src, dst string, srcDump []byte, actor string) []byte {
	t.Helper()
	cs, err := client.New(src)
	if err != nil {
		t.Fatal(err)
	}
	cd, err := client.New(dst)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cs.Deprecations(t.Context(), diffSubject, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cd.Deprecations(t.Context(), diffSubject, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].DaysLeft != 5 || got[0].DaysLeft != want[0].DaysLeft || len(got[0].Extensions) != 2 ||
		!got[0].DeprecatedAt.Equal(want[0].DeprecatedAt) || got[0].Extensions[0].GrantedAt != want[0].Extensions[0].GrantedAt {
		t.Errorf("restored deprecation %+v, want %+v (5 days left)", got, want)
	}
	for _, args := range [][]string{
		{"deprecate", "--calendar", "--within", "30"},
		{"owners", diffSubject, "-o", "json"},
		{"changelog", diffSubject},
		{"lineage", "graph", "--format", "json"},
	} {
		x := runOK(t, append([]string{"--registry", src}, args...)...)
		y := runOK(t, append([]string{"--registry", dst}, args...)...)
		if x != y {
			t.Errorf("charter %s: the restored registry answers\n%s\nthe source\n%s", strings.Join(args, " "), y.Stdout, x.Stdout)
		}
	}
	again := filepath.Join(t.TempDir(), "again.json")
	runOK(t, "--registry", dst, "export", "--file", again)
	b, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	d, err := regdump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	last := d.Audit[len(d.Audit)-1]
	if last.Action != registry.ActionRegistryImport || last.Actor != actor || !strings.Contains(string(last.After), `"format": "charter-registry-dump/v3"`) {
		t.Errorf("the restored registry's last audit entry %s by %s: %s; want registry.import by %s", last.Action, last.Actor, last.After, actor)
	}
	d.Audit = d.Audit[:len(d.Audit)-1]
	if b2, err := d.Encode(); err != nil || !bytes.Equal(b2, srcDump) {
		t.Errorf("the restored registry exports differently (%v): %s", err, regdump.Diff(mustRead(t, srcDump), d, 0))
	}
	return b
}

func mustRead(t *testing.T, b []byte) *regdump.Dump {
	t.Helper()
	d, err := regdump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBackupRoundTrip is issue 13's acceptance: on a registry holding the
// worked example, charter export → charter import → charter export gives
// the same bytes (plus the import's own audit entry, naming who
// imported), for SQLite→SQLite, SQLite→PostgreSQL and PostgreSQL→SQLite;
// after the import, the deprecation countdown shows the original days
// left.
func TestBackupRoundTrip(t *testing.T) {
	t.Setenv("CHARTER_ACTOR", "restorer")
	for _, pair := range []struct{ from, to string }{{"sqlite", "sqlite"}, {"sqlite", "postgres"}, {"postgres", "sqlite"}} {
		t.Run(pair.from+"→"+pair.to, func(t *testing.T) {
			src, sclk := serveDB(t, backupDB(t, pair.from))
			c, err := client.New(src)
			if err != nil {
				t.Fatal(err)
			}
			playBackupExample(t, c, sclk)
			file := filepath.Join(t.TempDir(), "backup.json")
			r := runOK(t, "--registry", src, "export", "--file", file)
			if !strings.Contains(r.Stdout, "exported 3 schemas") {
				t.Errorf("export summary: %s", r.Stdout)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			d := mustRead(t, b)
			kinds := map[string]int{}
			for _, rec := range d.Records {
				kinds[rec.Kind]++
			}
			if kinds["owner"] != 1 || kinds["deprecation"] != 1 || kinds["contract"] != 3 || kinds["lineage"] < 13 ||
				kinds["dismissal"] != 1 || kinds["removed"] != 1 || kinds["tags"] != 1 || len(d.Audit) < 25 || d.MaxSchemaID != 4 {
				t.Errorf("the dump holds %v records, %d audit entries, mark %d", kinds, len(d.Audit), d.MaxSchemaID)
			}

			dst, dclk := serveDB(t, backupDB(t, pair.to))
			dclk.Day(backupDay)
			r = runOK(t, "--registry", dst, "import", file)
			if !strings.Contains(r.Stdout, "imported 3 schemas") {
				t.Errorf("import summary: %s", r.Stdout)
			}
			checkRestored(t, src, dst, b, "restorer")
		})
	}
}

// TestMigrate: charter migrate copies a SQLite registry that is serving
// into another file, into PostgreSQL and from there back into a new file, each copy verified, the
// result exporting the source's dump byte for byte (plus one
// registry.import entry per copy); a destination that is not empty is
// refused unless --merge, which finds everything already there.
func TestMigrate(t *testing.T) {
	t.Setenv("CHARTER_ACTOR", "migrator")
	from := backupDB(t, "sqlite")
	src, clk := serveDB(t, from)
	c, err := client.New(src)
	if err != nil {
		t.Fatal(err)
	}
	playBackupExample(t, c, clk)
	file := filepath.Join(t.TempDir(), "backup.json")
	runOK(t, "--registry", src, "export", "--file", file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	// SQLite → SQLite (also without PostgreSQL).
	file2 := backupDB(t, "sqlite")
	r := runOK(t, "migrate", "--from", from, "--to", file2)
	if !strings.Contains(r.Stdout, "imported 3 schemas") || r.Stderr != "" {
		t.Errorf("migrate to SQLite: %+v", r)
	}
	s2, c2 := serveDB(t, file2)
	c2.Day(backupDay)
	checkRestored(t, src, s2, b, "migrator")
	// A destination a server owns is refused before anything is written:
	// that server's answers would go stale.
	before := filepath.Join(t.TempDir(), "before.json")
	runOK(t, "--registry", s2, "export", "--file", before)
	r = clitest.Run(t, "migrate", "--from", from, "--to", file2, "--merge")
	inUse := fmt.Sprintf("migrate: --to: database %s is in use by another charter process (pid %d): Charter's SQLite store serves one process; use PostgreSQL for replicas", file2, os.Getpid())
	if r.Code != cli.ExitError || !strings.Contains(r.Stderr, inUse) {
		t.Errorf("migrate into a served file: %+v, want exit 2 saying %q", r, inUse)
	}
	after := filepath.Join(t.TempDir(), "after.json")
	runOK(t, "--registry", s2, "export", "--file", after)
	if !bytes.Equal(must(os.ReadFile(before)), must(os.ReadFile(after))) {
		t.Errorf("migrate into a served file wrote into it")
	}

	pg := backupDB(t, "postgres")
	r = runOK(t, "migrate", "--from", from, "--to", pg)
	if !strings.Contains(r.Stdout, "imported 3 schemas") || r.Stderr != "" {
		t.Errorf("migrate to PostgreSQL: %+v", r)
	}
	// The copy, served, answers as the source.
	dst, dclk := serveDB(t, pg)
	dclk.Day(backupDay)
	checkRestored(t, src, dst, b, "migrator")

	r = clitest.Run(t, "migrate", "--from", from, "--to", pg)
	if r.Code != cli.ExitError || !strings.Contains(r.Stderr, "Import refused: the registry is not empty") {
		t.Errorf("migrate into a non-empty database: %+v", r)
	}
	r = runOK(t, "migrate", "--from", from, "--to", pg, "--merge")
	if !strings.Contains(r.Stdout, "imported 0 schemas, 0 subjects, 0 versions (0 soft-deleted), 0 configs, 0 modes, 0 governance records, 0 audit entries") {
		t.Errorf("migrate --merge of the same registry: %+v", r)
	}

	// Back from PostgreSQL into a file: the source's dump again, plus
	// the three import entries (two migrations into PostgreSQL, this one).
	back := filepath.Join(t.TempDir(), "back.db")
	runOK(t, "migrate", "--from", pg, "--to", back)
	bsrv, bclk := serveDB(t, back)
	bclk.Day(backupDay)
	again := filepath.Join(t.TempDir(), "again.json")
	runOK(t, "--registry", bsrv, "export", "--file", again)
	got := mustRead(t, must(os.ReadFile(again)))
	n := len(got.Audit)
	for _, e := range got.Audit[n-3:] {
		if e.Action != registry.ActionRegistryImport || e.Actor != "migrator" {
			t.Errorf("audit entry %+v, want registry.import by migrator", e)
		}
	}
	got.Audit = got.Audit[:n-3]
	if diff := regdump.Diff(mustRead(t, b), got, 0); diff != "" {
		t.Errorf("SQLite → PostgreSQL → SQLite: %s", diff)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--from", filepath.Join(t.TempDir(), "nope.db"), "--to", back}, "no database at --from"},
		{[]string{"migrate", "--from", from}, "give both --from and --to"},
		{[]string{"migrate", "--from", from, "--to", from}, "--from and --to are both"},
	} {
		if r := clitest.Run(t, tc.args...); r.Code != cli.ExitError || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("charter %s: %+v, want exit 2 saying %q", strings.Join(tc.args, " "), r, tc.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
