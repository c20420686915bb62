package clitest_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/sqlite"
)

const (
	habitShipment = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},` +
		`{"name":"carrier_code","type":"string","default":""}]}`
	habitEvent = `{"type":"record","name":"E","namespace":"acme","fields":[{"name":"id","type":"string"}]}`
	habitPact  = `{"consumer":{"name":"billing"},"provider":{"name":"fulfillment"},"messages":[{"description":"a shipment",` +
		`"contents":{"id":"s-1","carrier_code":"DHL"}}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
)

// noOutput are the commands -o does not apply to, and why; every other
// command must print JSON with -o json.
var noOutput = map[string]string{
	"charter serve":      "runs the server; its logs take --log-format json (and it refuses -o)",
	"charter completion": "prints a shell script",
}

// leaves returns every runnable command of the tree that is not a group,
// by command path.
func leaves(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.HasSubCommands() && c.HasParent() && c.IsAvailableCommand() {
			out[c.CommandPath()] = c
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEveryCommandHonoursOutputJSON walks the command tree and runs every
// command (against a test registry where it needs one) with -o json: its
// stdout must parse as JSON. A command added to the tree without a case
// here fails the test.
func TestEveryCommandHonoursOutputJSON(t *testing.T) {
	_, url, _ := clitest.NewRegistry(t)
	_, empty, _ := clitest.NewRegistry(t)
	dir := t.TempDir()
	ship := writeFile(t, dir, "shipment.avsc", habitShipment)
	event := writeFile(t, dir, "event.avsc", habitEvent)
	pact := writeFile(t, dir, "billing.json", habitPact)
	samples := writeFile(t, dir, "samples.jsonl", `{"id":"a","version":1,"value":{"id":"a"}}`+"\n")
	events := writeFile(t, dir, "events.jsonl", `{"id":"a","version":1,"payload":"Ang="}`+"\n")
	sample, err := filepath.Abs("../../../../action/project/testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	eventLong := writeFile(t, dir, "event-long.avsc", strings.Replace(habitEvent, `"type":"string"}`, `"type":"long"}`, 1))
	eventV2 := writeFile(t, dir, "event2.avsc", strings.Replace(habitEvent, `"type":"string"}`, `"type":"string"},{"name":"note","type":"string","default":""}`, 1))
	fromDB := filepath.Join(dir, "from.db")
	st, err := sqlite.Open(t.Context(), fromDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	head := t.TempDir()
	projecttest.CopyTree(t, filepath.Join(sample, "head"), head)
	initDir := t.TempDir()
	projecttest.CopyTree(t, filepath.Join(sample, "head"), initDir)
	if err := os.Remove(filepath.Join(initDir, "charter.yaml")); err != nil {
		t.Fatal(err)
	}
	clitest.Transcript(t, url,
		clitest.OK("register", "shipments-value", ship),
		clitest.OK("register", "events-value", event),
		clitest.OK("register", "scratch-value", event),
		clitest.OK("contracts", "publish", pact, "--subject", "shipments-value", "--consumer-version", "1.0.0"),
		// gaps-value v1 cannot reach v2: id changes type, no migration rule.
		clitest.OK("config", "set", "gaps-value", "--level", "NONE"),
		clitest.OK("register", "gaps-value", event),
		clitest.OK("register", "gaps-value", eventLong),
	)
	dumpFile := filepath.Join(dir, "dump.json")
	if r := clitest.Run(t, "export", "--registry", url, "--file", dumpFile); r.Code != cli.ExitOK {
		t.Fatalf("export: %d %s", r.Code, r.Stderr)
	}

	// In order: some cases need what an earlier one made.
	cases := []struct {
		path  string
		args  []string
		stdin string
		reg   string // registry; "" is url
	}{
		{path: "charter version"},
		{path: "charter rules"},
		{path: "charter diff", args: []string{ship, event}},
		{path: "charter check", args: []string{"-C", head, "--against", "dir:" + filepath.Join(sample, "base")}},
		{path: "charter init", args: []string{initDir}},
		{path: "charter contracts verify", args: []string{pact, "--schema", ship}},
		{path: "charter contracts publish", args: []string{pact, "--subject", "shipments-value", "--consumer-version", "1.0.1"}},
		{path: "charter auth token", args: []string{"--principal", "ci-bot"}},
		{path: "charter auth hash-password", stdin: "correct horse\n"},
		{path: "charter subjects"},
		{path: "charter versions", args: []string{"shipments-value"}},
		{path: "charter get", args: []string{"shipments-value"}},
		{path: "charter lookup", args: []string{"shipments-value", ship}},
		{path: "charter register", args: []string{"scratch-value", eventV2, "--type", "avro"}},
		{path: "charter config set", args: []string{"scratch-value", "--level", "NONE"}},
		{path: "charter config get", args: []string{"scratch-value"}},
		{path: "charter config delete", args: []string{"scratch-value"}},
		{path: "charter mode set", args: []string{"scratch-value", "READONLY"}},
		{path: "charter mode get", args: []string{"scratch-value"}},
		{path: "charter mode delete", args: []string{"scratch-value"}},
		{path: "charter delete", args: []string{"scratch-value", "2"}},
		{path: "charter owners", args: []string{"shipments-value", "--team", "logistics", "--contact", "#logistics"}},
		{path: "charter deprecate", args: []string{"shipments-value", ".carrier_code", "--reason", "carriers are records now"}},
		{path: "charter extend", args: []string{"shipments-value", ".carrier_code", "--consumer", "billing", "--days", "10", "--reason", "Q2", "--approver", "alice"}},
		{path: "charter tags", args: []string{"shipments-value"}},
		{path: "charter dismiss", args: []string{"shipments-value", "--list"}},
		{path: "charter changelog", args: []string{"shipments-value"}},
		{path: "charter audit"},
		{path: "charter lineage impact", args: []string{"--subject", "shipments-value", "--field", ".id"}},
		{path: "charter lineage pii"},
		{path: "charter lineage deprecations", args: []string{"--subject", "shipments-value"}},
		{path: "charter lineage graph"},
		{path: "charter lineage producers set", args: []string{"shipments-value", "fulfillment", "--versions", "1"}},
		{path: "charter lineage producers list", args: []string{"shipments-value"}},
		{path: "charter lineage producers remove", args: []string{"shipments-value", "fulfillment"}},
		{path: "charter lineage consumers set", args: []string{"shipments-value", "crm", "--fields", ".id"}},
		{path: "charter lineage consumers list", args: []string{"shipments-value"}},
		{path: "charter lineage consumers remove", args: []string{"shipments-value", "crm"}},
		{path: "charter upcast verify", args: []string{"--subject", "events-value", "--samples", samples}},
		{path: "charter upcast replay", args: []string{"--subject", "events-value", "--in", events, "--out", filepath.Join(dir, "out.jsonl"), "--no-progress"}},
		{path: "charter export", args: []string{"--file", filepath.Join(dir, "again.json")}},
		{path: "charter import", args: []string{dumpFile}, reg: empty},
		{path: "charter migrate", args: []string{"--from", fromDB, "--to", filepath.Join(dir, "to.db")}},
	}
	tree := leaves(cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard}))
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.path] = true
		if _, ok := tree[tc.path]; !ok {
			t.Errorf("%s: no such command in the tree (remove its case)", tc.path)
			continue
		}
		reg := tc.reg
		if reg == "" {
			reg = url
		}
		args := append(append(strings.Fields(strings.TrimPrefix(tc.path, "charter")), tc.args...), "--registry", reg, "-o", "json")
		r := clitest.RunStdin(t, tc.stdin, args...)
		if r.Code != cli.ExitOK && r.Code != cli.ExitViolations {
			t.Errorf("%s -o json: exit %d\nstderr: %s", tc.path, r.Code, r.Stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil || v == nil && strings.TrimSpace(r.Stdout) != "null" {
			t.Errorf("%s -o json: stdout is not JSON (%v):\n%s", tc.path, err, r.Stdout)
		}
	}
	for path := range tree {
		if _, ok := noOutput[path]; !ok && !seen[path] {
			t.Errorf("%s has no -o json case: add one to TestEveryCommandHonoursOutputJSON (or to noOutput, with the reason)", path)
		}
	}

	// The other modes of the commands that have several, and the paths
	// that end in a finding or a refusal (exit 1): each prints its
	// document as JSON too, never the text rendering.
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"deprecate", "--list"}, cli.ExitOK},
		{[]string{"deprecate", "--calendar"}, cli.ExitOK},
		{[]string{"extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--revoke"}, cli.ExitOK},
		{[]string{"deprecate", "shipments-value", ".carrier_code", "--undo"}, cli.ExitOK},
		{[]string{"owners"}, cli.ExitOK},
		{[]string{"owners", "shipments-value", "--delete"}, cli.ExitOK},
		{[]string{"audit", "--subject", "nobody-value"}, cli.ExitOK},
		{[]string{"lineage", "producers", "list", "events-value"}, cli.ExitOK},
		{[]string{"lineage", "consumers", "list", "events-value"}, cli.ExitOK},
		{[]string{"lineage", "graph", "--format", "json"}, cli.ExitOK},
		{[]string{"tags", "events-value", "--set", "**.id=SENSITIVE"}, cli.ExitOK},
		{[]string{"tags", "events-value", "--clear"}, cli.ExitOK},
		{[]string{"dismiss", "shipments-value", ".id", "--pattern", "PII_EMAIL", "--reason", "an opaque id"}, cli.ExitOK},
		{[]string{"dismiss", "shipments-value", ".id", "--pattern", "PII_EMAIL", "--undo"}, cli.ExitOK},
		{[]string{"owners", "--team", "nobody"}, cli.ExitOK},
		{[]string{"config", "get"}, cli.ExitOK},
		{[]string{"mode", "get"}, cli.ExitOK},
		{[]string{"get", "shipments-value", "1"}, cli.ExitOK},
		{[]string{"rules", "AVRO_TYPE_MISMATCH"}, cli.ExitOK},
		// Exit 1: findings and refusals.
		{[]string{"diff", event, eventLong}, cli.ExitViolations},
		{[]string{"contracts", "verify", pact, "--schema", event}, cli.ExitViolations},
		{[]string{"register", "events-value", eventLong}, cli.ExitViolations},
		{[]string{"upcast", "verify", "--subject", "gaps-value", "--samples", samples}, cli.ExitViolations},
		{[]string{"upcast", "replay", "--subject", "gaps-value", "--in", events, "--out", filepath.Join(dir, "gaps.jsonl"), "--no-progress"}, cli.ExitViolations},
	} {
		args := append(tc.args, "--registry", url, "-o", "json")
		r := clitest.Run(t, args...)
		var v any
		if r.Code != tc.code {
			t.Errorf("%v: exit %d, want %d\nstderr: %s", args, r.Code, tc.code, r.Stderr)
		} else if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
			t.Errorf("%v: stdout is not JSON (%v):\n%s", args, err, r.Stdout)
		}
	}

	// An error (exit 2) is one line on stderr and nothing on stdout: every
	// case again, against a registry nobody listens on, prints JSON or
	// nothing.
	for _, tc := range cases {
		args := append(append(strings.Fields(strings.TrimPrefix(tc.path, "charter")), tc.args...), "--registry", "http://127.0.0.1:1", "-o", "json")
		r := clitest.RunStdin(t, tc.stdin, args...)
		if strings.TrimSpace(r.Stdout) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
			t.Errorf("%s -o json, registry down: exit %d, stdout is neither JSON nor empty (%v):\n%s", tc.path, r.Code, err, r.Stdout)
		}
	}
	// A bad output format is refused before anything is done, as one
	// line naming the flag the user typed: -o/--output for the global
	// flag, --format for a command's own.
	for _, tc := range cases {
		base := append(strings.Fields(strings.TrimPrefix(tc.path, "charter")), tc.args...)
		base = append(base, "--registry", "http://127.0.0.1:1")
		r := clitest.RunStdin(t, tc.stdin, append(base, "-o", "bogus")...)
		if r.Code != cli.ExitError || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, `-o/--output "bogus"`) || r.Stdout != "" {
			t.Errorf("%s -o bogus: exit %d, stdout %q, stderr %q; want one line naming -o/--output", tc.path, r.Code, r.Stdout, r.Stderr)
		}
		if c := tree[tc.path]; c != nil && c.LocalFlags().Lookup("format") != nil {
			r := clitest.RunStdin(t, tc.stdin, append(base, "--format", "bogus")...)
			if r.Code != cli.ExitError || !strings.Contains(r.Stderr, `--format "bogus"`) || strings.Contains(r.Stderr, "--output") {
				t.Errorf("%s --format bogus: exit %d, stderr %q; want one line naming --format", tc.path, r.Code, r.Stderr)
			}
		}
	}
	r := clitest.Run(t, "rules", "-o", "sarif")
	if r.Code != cli.ExitError || r.Stderr != `charter: invalid -o/--output "sarif" for rules: want text, json or markdown`+"\n" {
		t.Errorf("rules -o sarif: exit %d, %q", r.Code, r.Stderr)
	}

	// A bad --output is one line and exit 2, wherever it is given.
	for _, args := range [][]string{{"version", "-o", "yaml"}, {"contracts", "verify", pact, "--schema", ship, "-o", "yaml"},
		{"upcast", "replay", "--subject", "x", "--in", events, "--out", "o", "-o", "xml"}, {"serve", "-o", "json"}} {
		r := clitest.Run(t, args...)
		if r.Code != cli.ExitError || strings.Count(r.Stderr, "\n") != 1 || !strings.HasPrefix(r.Stderr, "charter: ") {
			t.Errorf("%v: exit %d, stderr %q; want one line and exit 2", args, r.Code, r.Stderr)
		}
	}
}

// documentedValues finds the fixed set of values a flag's help documents:
// "…: text or json", "debug, info, warn or error", "auto (…), always or
// never". nil when the help documents none.
var valueList = regexp.MustCompile(`(?:^|: )((?:[A-Za-z][\w-]*(?: \([^)]*\))?, )*[A-Za-z][\w-]*(?: \([^)]*\))?,? or [A-Za-z][\w-]*)(?:$|[;)]| \()`)

func documentedValues(usage string) []string {
	m := valueList.FindStringSubmatch(usage)
	if m == nil {
		return nil
	}
	list := regexp.MustCompile(` \([^)]*\)`).ReplaceAllString(m[1], "")
	var out []string
	for _, part := range regexp.MustCompile(`,? or |, `).Split(list, -1) {
		out = append(out, strings.TrimSpace(part))
	}
	return out
}

// TestDocumentedValuesComplete walks every flag of every command: one whose
// help documents a fixed set of values must complete with exactly that
// set (through cobra's __complete, as a shell asks), and every flag that
// global.Enum gave values must complete with them.
func TestDocumentedValuesComplete(t *testing.T) {
	if got := documentedValues("log level: debug, info, warn or error"); strings.Join(got, ",") != "debug,info,warn,error" {
		t.Fatalf("documentedValues = %q", got)
	}
	if got := documentedValues("colour the text format: auto (a terminal without NO_COLOR), always or never"); strings.Join(got, ",") != "auto,always,never" {
		t.Fatalf("documentedValues = %q", got)
	}
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	checked := 0
	for path, c := range leaves(root) {
		visit := func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" {
				return
			}
			want := f.Annotations[global.AnnotationValues]
			if f.Name == global.FlagOutput {
				want = global.OutputValues(c)
			}
			doc := documentedValues(f.Usage)
			if want == nil && doc == nil {
				return
			}
			if want == nil {
				t.Errorf("%s --%s documents %q but completes nothing (global.Enum)", path, f.Name, doc)
				return
			}
			for _, d := range doc {
				if !slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, d) }) {
					t.Errorf("%s --%s documents %q, which its completion (%q) lacks", path, f.Name, d, want)
				}
			}
			args := append(strings.Fields(strings.TrimPrefix(path, "charter")), "--"+f.Name, "")
			got := complete(t, args...)
			if !slices.Equal(got, want) {
				t.Errorf("charter __complete %s: %q, want %q", strings.Join(args, " "), got, want)
			}
			checked++
		}
		c.LocalFlags().VisitAll(visit)
		c.InheritedFlags().VisitAll(visit)
	}
	if checked < 60 {
		t.Errorf("only %d flags with values checked; the walk is broken", checked)
	}
	// -o completes with what the command takes.
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"subjects", "-o", ""}, []string{"text", "json"}},
		{[]string{"rules", "-o", ""}, []string{"text", "json", "markdown"}},
		{[]string{"diff", "-o", ""}, global.FormatValues()},
		{[]string{"mode", "set", ""}, []string{"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"}},
	} {
		if got := complete(t, tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("charter __complete %q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// complete runs `charter __complete args...` and returns the completions
// (without the directive line), against a registry nobody listens on.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	r := clitest.Run(t, append([]string{"__complete", "--registry", "http://127.0.0.1:1"}, args...)...)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if l == "" || strings.HasPrefix(l, ":") {
			continue
		}
		name, _, _ := strings.Cut(l, "\t")
		out = append(out, name)
	}
	return out
}

// TestCompleteFromRegistry: subjects and versions complete from the
// registry when it answers (and nothing, silently, when it does not:
// TestDocumentedValuesComplete runs against no registry).
func TestCompleteFromRegistry(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", habitShipment)
	clitest.Register(t, svc, "shipments-value", strings.Replace(habitShipment, `"default":""}`, `"default":""},{"name":"note","type":"string","default":""}`, 1))
	clitest.Register(t, svc, "events-value", habitEvent)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"versions", ""}, []string{"events-value", "shipments-value"}},
		{[]string{"get", "shipments-value", ""}, []string{"latest", "1", "2"}},
		{[]string{"lineage", "impact", "--subject", "ship"}, []string{"shipments-value"}},
		{[]string{"lineage", "impact", "--subject", "shipments-value", "--version", ""}, []string{"1", "2"}},
		{[]string{"upcast", "replay", "--subject", "events-value", "--target", ""}, []string{"1"}},
		{[]string{"deprecate", "s"}, []string{"shipments-value"}},
		{[]string{"deprecate", "shipments-value", ""}, nil},
		{[]string{"lineage", "producers", "list", "e"}, []string{"events-value"}},
	} {
		r := clitest.Run(t, append([]string{"__complete", "--registry", url}, tc.args...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("charter __complete %q: %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := complete(t, "versions", ""); len(got) != 0 {
		t.Errorf("no registry: completions %q, want none", got)
	}
}
