package clitest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

// The worked example of issue 10 §3: carrier_code deprecated on day 0
// with a 90-day TTL; 12 consumer teams, 5 of which read it (3 by
// published pact, 2 declared through lineage); pact-a holds an extension
// until day 150; on day 180 the 5 readers have moved on.
var (
	weKeep    = "id:string, carrier_code:string, carrier:string"
	weRemove  = "id:string, carrier:string"
	weReaders = []string{"pact-a", "pact-b", "pact-c", "decl-d", "decl-e"}
)

func workedSteps() []step {
	steps := []step{{Day: 0, Register: weKeep}, {Day: 0, Deprecate: ".carrier_code", TTL: 90}}
	for _, p := range weReaders[:3] {
		steps = append(steps, step{Day: 0, Pact: p, Reads: []string{"id", "carrier_code"}})
	}
	for _, d := range weReaders[3:] {
		steps = append(steps, step{Day: 0, Declare: d, Reads: []string{".carrier_code"}})
	}
	for _, o := range []string{"o1", "o2", "o3", "o4", "o5", "o6", "o7"} {
		steps = append(steps, step{Day: 0, Declare: o, Reads: []string{".id"}})
	}
	steps = append(steps, step{Day: 80, Extend: "pact-a", Days: 70, Reads: []string{".carrier_code"}})
	for _, r := range weReaders {
		steps = append(steps, step{Day: 180, Remove: r})
	}
	return steps
}

// row is the table's answer for one day and one change: the deprecation
// finding ("" for none), and the readers its message names and does not.
type row struct {
	finding    string
	named, not []string
	refused    bool
}

func workedTable(day int) (keep, remove row) {
	switch {
	case day < 90:
		return row{"warning DEPRECATION_ACTIVE .carrier_code", weReaders, nil, false},
			row{"error DEPRECATION_REMOVAL_GUARDED .carrier_code", weReaders, nil, true}
	case day < 180:
		return row{"warning DEPRECATION_EXPIRED_READ .carrier_code", weReaders[1:], weReaders[:1], false},
			row{"error DEPRECATION_REMOVAL_GUARDED .carrier_code", weReaders, nil, true}
	}
	return row{"error DEPRECATION_EXPIRED .carrier_code", nil, nil, true}, row{"", nil, nil, false}
}

type msgFinding struct {
	RuleID   string `json:"ruleId"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
}

func deprecationOf(fs []msgFinding) (string, string) {
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, "DEPRECATION_") {
			return f.Severity + " " + f.RuleID + " " + f.Path, f.Message
		}
	}
	return "", ""
}

func assertRow(t *testing.T, where string, want row, fs []msgFinding) {
	t.Helper()
	got, msg := deprecationOf(fs)
	if got != want.finding {
		t.Errorf("%s: deprecation finding %q, want %q", where, got, want.finding)
	}
	for _, n := range want.named {
		if !strings.Contains(msg, n) {
			t.Errorf("%s: message does not name %s: %s", where, n, msg)
		}
	}
	for _, n := range want.not {
		if strings.Contains(msg, n) {
			t.Errorf("%s: message names %s: %s", where, n, msg)
		}
	}
}

func checkFindings(t *testing.T, dir, url string, extra ...string) []msgFinding {
	t.Helper()
	r := clitest.Run(t, append([]string{"check", "-C", dir, "--against", "registry:" + url, "--format", "json"}, extra...)...)
	if r.Code > 1 {
		t.Fatalf("charter check: exit %d: %s", r.Code, r.Stderr)
	}
	var res struct{ Findings []msgFinding }
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

func dryFindings(t *testing.T, c *client.Client, text string, at time.Time) []msgFinding {
	t.Helper()
	res, err := c.CheckGovernanceAt(t.Context(), diffSubject, client.NewSchema{Text: text}, at)
	if err != nil {
		t.Fatal(err)
	}
	var out []msgFinding
	for _, f := range res.Findings {
		out = append(out, msgFinding{f.RuleID, f.Severity, f.Path, f.Message})
	}
	return out
}

// TestWorkedExample checks the deprecation table on days 0, 89, 90, 120
// and 200, keeping and removing carrier_code: in CI (charter check
// --against registry) and in the registry (dry run, and real
// registration on the injected clock), through --at on a registry that
// has lived through every step and through the registry's clock moved to
// each day.
func TestWorkedExample(t *testing.T) {
	t.Parallel()
	keepText, removeText := schemaOf("AVRO", weKeep), schemaOf("AVRO", weRemove)
	keepDir := writeProject(t, compat.Avro, keepText, "")
	removeDir := writeProject(t, compat.Avro, removeText, "")

	// Through --at: every step played, then judged as of each day.
	_, url, clk := clitest.NewRegistry(t)
	c, err := client.New(url)
	if err != nil {
		t.Fatal(err)
	}
	play(t, c, clk, compat.Avro, workedSteps())
	for _, day := range []int{0, 89, 90, 120, 200} {
		at := clitest.Day0.Add(time.Duration(day) * 24 * time.Hour)
		keep, remove := workedTable(day)
		arg := at.Format(time.RFC3339)
		assertRow(t, "--at day "+arg+" keep (check)", keep, checkFindings(t, keepDir, url, "--at", arg))
		assertRow(t, "--at day "+arg+" remove (check)", remove, checkFindings(t, removeDir, url, "--at", arg))
		assertRow(t, "--at day "+arg+" keep (dry run)", keep, dryFindings(t, c, keepText, at))
		assertRow(t, "--at day "+arg+" remove (dry run)", remove, dryFindings(t, c, removeText, at))
	}

	// Through the injected clock: the registry lives up to each day.
	for _, day := range []int{0, 89, 90, 120, 200} {
		_, url, clk := clitest.NewRegistry(t)
		c, err := client.New(url)
		if err != nil {
			t.Fatal(err)
		}
		var steps []step
		for _, s := range workedSteps() {
			if s.Day <= day {
				steps = append(steps, s)
			}
		}
		play(t, c, clk, compat.Avro, steps)
		clk.Day(day)
		at := clk.Now()
		keep, remove := workedTable(day)
		where := "clock day " + at.Format(time.DateOnly)
		assertRow(t, where+" keep (check)", keep, checkFindings(t, keepDir, url, "--at", at.Format(time.RFC3339)))
		assertRow(t, where+" remove (check)", remove, checkFindings(t, removeDir, url, "--at", at.Format(time.RFC3339)))
		assertRow(t, where+" keep (dry run)", keep, dryFindings(t, c, keepText, time.Time{}))
		assertRow(t, where+" remove (dry run)", remove, dryFindings(t, c, removeText, time.Time{}))
		for _, tc := range []struct {
			name string
			text string
			want row
		}{{"remove", removeText, remove}, {"keep", keepText, keep}} {
			_, err := c.Register(t.Context(), diffSubject, client.NewSchema{Text: tc.text})
			if refused := err != nil; refused != tc.want.refused {
				t.Errorf("%s: registering %s: refused %v (%v), want %v", where, tc.name, refused, err, tc.want.refused)
			}
		}
	}
}
