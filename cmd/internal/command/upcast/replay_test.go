package upcast_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	upcastcmd "github.com/charter-dev/charter/cmd/internal/command/upcast"
	"github.com/charter-dev/charter/compat/avro"
	up "github.com/charter-dev/charter/upcast"
)

// order is one event of the test log.
type order struct {
	id, key string
	version int
	cents   int64
	email   string
}

// orders is a mixed log of three customers (keys) in all three versions.
var orders = []order{
	{"o-1", "ada", 1, 1234, "ada@example.com"},
	{"o-2", "bob", 1, 5, ""},
	{"o-3", "ada", 2, 99, ""},
	{"o-4", "cy", 3, 750, "cy@example.com"},
	{"o-5", "bob", 2, 100000, "bob@example.com"},
	{"o-6", "cy", 1, 1, ""},
	{"o-7", "ada", 3, 20, ""},
}

func encodeOrder(t *testing.T, o order) []byte {
	t.Helper()
	var email any
	if o.email != "" {
		email = o.email
	}
	var text string
	var v map[string]any
	switch o.version {
	case 1:
		text, v = orderV1, map[string]any{"id": o.id, "customer": o.key, "totalCents": o.cents}
	case 2:
		text, v = orderV2, map[string]any{"orderId": o.id, "customer": map[string]any{"name": o.key, "email": email}, "totalCents": o.cents}
	case 3:
		text, v = orderV3, map[string]any{"orderId": o.id, "customer": map[string]any{"name": o.key, "email": email}, "amount": big.NewRat(o.cents, 100), "currency": "EUR"}
	}
	s, err := avro.Parse(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.API().Marshal(s.Hamba(), v)
	if err != nil {
		t.Fatal(err)
	}
	return append(up.AppendWire(nil, int64(o.version)), b...) // schema IDs 1, 2, 3 (newRegistry)
}

// writeLog writes the event log: the orders, then with bad a truncated
// payload and an event of a schema ID the registry does not have.
func writeLog(t *testing.T, dir string, bad bool) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("# OrderPlaced, three generations\n")
	enc := json.NewEncoder(&b)
	for i, o := range orders {
		if err := enc.Encode(up.LogEvent{ID: o.id, Key: o.key, Payload: encodeOrder(t, o)}); err != nil {
			t.Fatal(err)
		}
		if bad && i == 2 {
			_ = enc.Encode(up.LogEvent{ID: "trunc", Key: "dan", Version: 1, Payload: []byte{0x06, 'o'}})
			_ = enc.Encode(up.LogEvent{ID: "unknown", Key: "eve", Payload: up.AppendWire(nil, 9)})
		}
	}
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// renderOut reads an output event log back: one line per event, sorted by
// id, with its key, writer version and v3 value decoded from the framed
// payload; it also checks that each key's events kept their log order.
func renderOut(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v3, err := avro.Parse(orderV3, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := map[string]int{}
	for i, o := range orders {
		order[o.id] = i
	}
	lastOfKey := map[string]int{}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var le up.LogEvent
		if err := json.Unmarshal([]byte(l), &le); err != nil {
			t.Fatal(err)
		}
		id, payload, err := up.ParseWire(le.Payload)
		if err != nil || id != 3 {
			t.Fatalf("%s: schema ID %d, %v; want v3's ID 3", le.ID, id, err)
		}
		var v map[string]any
		if err := v3.API().Unmarshal(v3.Hamba(), payload, &v); err != nil {
			t.Fatal(err)
		}
		if prev, ok := lastOfKey[le.Key]; ok && order[le.ID] < prev {
			t.Errorf("key %s: %s written after a later event", le.Key, le.ID)
		}
		lastOfKey[le.Key] = order[le.ID]
		c := v["customer"].(map[string]any)
		lines = append(lines, fmt.Sprintf("%s key=%s from=v%d subject=%s orderId=%v name=%v email=%v amount=%s currency=%v",
			le.ID, le.Key, le.From, le.Subject, v["orderId"], c["name"], c["email"], v["amount"].(*big.Rat).FloatString(2), v["currency"]))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// sortedLines sorts the lines of s: events of different keys are written
// in whatever order the workers finish them.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

var progressLine = regexp.MustCompile(`^replay: \d+ events in \S+( \(\S+ events/s\))?, \d+ failed events?$`)

func TestReplay(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, centsToAmount)
	for _, tc := range []struct {
		name   string
		bad    bool
		args   []string
		code   int
		out    bool // golden of the output log
		dead   bool // golden of the dead letters
		before func(t *testing.T, dir string)
		after  func(t *testing.T, dir string)
	}{
		{name: "replay_ok", args: []string{"--concurrency", "3"}, code: 0, out: true},
		{name: "replay_dead", bad: true, args: []string{"--concurrency", "2", "--dead", "DIR/dead.jsonl"}, code: 1, out: true, dead: true},
		{name: "replay_stop", bad: true, args: []string{"--concurrency", "1"}, code: 1},
		{name: "replay_redrive", args: []string{"--in", "DIR/dead.jsonl", "--dead", "DIR/dead2.jsonl"}, code: 1,
			before: func(t *testing.T, dir string) {
				// A first run's dead letters are given back as --in.
				code, _, stderr := run(t, "upcast", "replay", "--registry", reg, "--subject", "OrderPlaced",
					"--in", writeLog(t, dir, true), "--out", filepath.Join(dir, "first.jsonl"), "--dead", filepath.Join(dir, "dead.jsonl"))
				if code != 1 {
					t.Fatalf("first run: exit %d (%s)", code, stderr)
				}
			},
			after: func(t *testing.T, dir string) {
				// Still failing, they come out as they went in: stored bytes
				// kept, same reasons.
				first, err1 := os.ReadFile(filepath.Join(dir, "dead.jsonl"))
				again, err2 := os.ReadFile(filepath.Join(dir, "dead2.jsonl"))
				if err1 != nil || err2 != nil || sortedLines(string(first)) != sortedLines(string(again)) {
					t.Errorf("re-driven dead letters differ:\n%s\n%s (%v, %v)", first, again, err1, err2)
				}
			}},
		{name: "replay_target_v2_gap", args: []string{"--target", "2"}, code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.before != nil {
				tc.before(t, dir)
			}
			args := []string{"upcast", "replay", "--registry", reg, "--subject", "OrderPlaced",
				"--in", writeLog(t, dir, tc.bad), "--out", filepath.Join(dir, "out.jsonl")}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "DIR", dir))
			}
			code, stdout, stderr := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			// stderr is not a terminal here: one summary line only (none
			// when the chain has a gap: nothing was replayed).
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); stderr != "" && (len(lines) != 1 || !progressLine.MatchString(lines[0])) {
				t.Errorf("stderr %q is not one summary line", stderr)
			}
			golden(t, tc.name, strings.ReplaceAll(stdout, dir, "DIR"))
			if tc.out {
				golden(t, tc.name+"_out", renderOut(t, filepath.Join(dir, "out.jsonl")))
			}
			if tc.dead {
				raw, err := os.ReadFile(filepath.Join(dir, "dead.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				golden(t, tc.name+"_dead", sortedLines(string(raw)))
			}
			if tc.after != nil {
				tc.after(t, dir)
			}
		})
	}
}

func TestReplayJSON(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, centsToAmount)
	dir := t.TempDir()
	code, stdout, stderr := run(t, "upcast", "replay", "--registry", reg, "--subject", "OrderPlaced", "--format", "json", "--no-progress",
		"--in", writeLog(t, dir, true), "--out", filepath.Join(dir, "out.jsonl"), "--dead", filepath.Join(dir, "dead.jsonl"))
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and no stderr (--no-progress)", code, stderr)
	}
	var got struct {
		Subject                          string
		Target                           int
		Events, Upcast, FastPath, Failed int64
		Steps, Failures                  map[string]int64
		Written, DeadLetters             int64
		Out, Dead                        string
		ElapsedMS                        int64
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	wantSteps := map[string]int64{"v1→v2 rule(splitCustomer)": 3, "v2→v3 rule(centsToAmount)": 5}
	wantFailures := map[string]int64{up.ErrDecode.Error(): 1, up.ErrUnknownVersion.Error(): 1}
	if got.Subject != "OrderPlaced" || got.Target != 3 || got.Events != 9 || got.Upcast != 5 || got.FastPath != 2 || got.Failed != 2 ||
		got.Written != 7 || got.DeadLetters != 2 || !mapsEqual(got.Steps, wantSteps) || !mapsEqual(got.Failures, wantFailures) {
		t.Errorf("summary = %+v", got)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestReplayProgress(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, centsToAmount)
	for _, bar := range []bool{true, false} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		cmd := upcastcmd.NewCommand("upcast", upcastcmd.Deps{ErrViolations: errViolations, Progress: &bar, ProgressEvery: time.Hour})
		cmd.SilenceErrors, cmd.SilenceUsage = true, true // as the root command does
		global.AddFlags(cmd.PersistentFlags())
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		cmd.SetArgs([]string{"replay", "--registry", reg, "--subject", "OrderPlaced", "--dead", filepath.Join(dir, "dead.jsonl"),
			"--in", writeLog(t, dir, true), "--out", filepath.Join(dir, "out.jsonl")})
		if err := cmd.ExecuteContext(t.Context()); err != errViolations {
			t.Fatalf("bar=%t: err = %v, want the violations error", bar, err)
		}
		// The bar (progressbar/v3) ends complete, with the count and the
		// rate; off a terminal, one summary line.
		got := errb.String()
		if bar && (!strings.Contains(got, "replay") || !strings.Contains(got, "100%") || !strings.Contains(got, "(9/9, ") ||
			!strings.Contains(got, "events/s") || !strings.HasSuffix(got, "\n")) {
			t.Errorf("bar: stderr = %q, want the bar complete at 9/9 with a rate", got)
		}
		if !bar && (!progressLine.MatchString(strings.TrimSuffix(got, "\n")) || !strings.HasPrefix(got, "replay: 9 events in ") ||
			!strings.HasSuffix(got, ", 2 failed events\n")) {
			t.Errorf("plain: stderr = %q, want one summary line of 9 events, 2 failed", got)
		}
	}
}

var errViolations = fmt.Errorf("violations")

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, centsToAmount)
	dir := t.TempDir()
	events := writeLog(t, dir, false)
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"a","payload":"AAAAAAEGby02Bkl2eaQD"}`+"\n"+`{"id":"b","version":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no subject", []string{"--in", events, "--out", out}, "charter: --subject is required\n"},
		{"no in", []string{"--subject", "OrderPlaced", "--out", out}, "charter: --in is required\n"},
		{"no out", []string{"--subject", "OrderPlaced", "--in", events}, "charter: --out is required\n"},
		{"same file", []string{"--subject", "OrderPlaced", "--in", events, "--out", events}, "charter: --in, --out and --dead must be different files\n"},
		{"bad concurrency", []string{"--subject", "OrderPlaced", "--in", events, "--out", out, "--concurrency", "0"}, "charter: invalid --concurrency 0: want at least 1\n"},
		{"missing log", []string{"--subject", "OrderPlaced", "--in", filepath.Join(dir, "nope.jsonl"), "--out", out}, "charter: open DIR/nope.jsonl: no such file or directory\n"},
		{"bad line", []string{"--subject", "OrderPlaced", "--in", bad, "--out", out, "--no-progress"}, "charter: replay: read source: line 2: no payload\n"},
		{"unknown subject", []string{"--subject", "Nope", "--in", events, "--out", out}, `charter: build chain of Nope: list versions of subject "Nope": Subject 'Nope' not found.` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"upcast", "replay", "--registry", reg}, tc.args...)...)
			if code != 2 || stdout != "" || strings.ReplaceAll(stderr, dir, "DIR") != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tc.stderr)
			}
		})
	}
}

// TestReplayStopSameForEveryConcurrency: without --dead, the first failed
// event in log order stops the replay at every --concurrency, and neither
// the output nor a temporary file is left: an --out that existed keeps its
// content. With every event good, the output is the same set of events.
func TestReplayStopSameForEveryConcurrency(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, centsToAmount)
	// 60 good events, then from position 40 on an event of an unknown
	// schema ID, a truncated one and more unknown ones.
	logOf := func(t *testing.T, dir string, bad bool) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for i := range 60 {
			o := orders[i%len(orders)]
			o.id = fmt.Sprintf("%s-%d", o.id, i)
			if err := enc.Encode(up.LogEvent{ID: o.id, Key: fmt.Sprintf("k%d", i%13), Payload: encodeOrder(t, o)}); err != nil {
				t.Fatal(err)
			}
			if bad && i >= 40 && i%5 == 0 {
				_ = enc.Encode(up.LogEvent{ID: fmt.Sprintf("unknown-%d", i), Key: fmt.Sprintf("u%d", i), Payload: up.AppendWire(nil, 9)})
			}
			if bad && i == 47 {
				_ = enc.Encode(up.LogEvent{ID: "trunc", Key: "dan", Version: 1, Payload: []byte{0x06, 'o'}})
			}
		}
		path := filepath.Join(dir, "events.jsonl")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, bad := range []bool{true, false} {
		var first string // stdout of the first run, and its output
		var firstOut string
		for _, conc := range []string{"1", "8", "8", "8", "8", "8"} {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.jsonl")
			if err := os.WriteFile(out, []byte("kept\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, "upcast", "replay", "--registry", reg, "--subject", "OrderPlaced", "--no-progress",
				"--in", logOf(t, dir, bad), "--out", out, "--concurrency", conc)
			stdout = strings.ReplaceAll(stdout, dir, "DIR")
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Errorf("bad=%v concurrency %s: %d files in the directory, want events.jsonl and out.jsonl", bad, conc, len(entries))
			}
			if bad {
				want := "replay OrderPlaced → v3: FAIL at event unknown-40: "
				if code != 1 || !strings.HasPrefix(stdout, want) || string(raw) != "kept\n" || stderr != "" {
					t.Errorf("concurrency %s: exit %d, out of %d bytes (untouched: %v), stderr %q, stdout:\n%s\nwant exit 1, out untouched, stdout starting %q", conc, code, len(raw), string(raw) == "kept\n", stderr, stdout, want)
				}
			} else if code != 0 || strings.Count(string(raw), "\n") != 60 {
				t.Errorf("concurrency %s: exit %d, %d events written, want 0 and 60\n%s%s", conc, code, strings.Count(string(raw), "\n"), stdout, stderr)
			}
			if first == "" {
				first, firstOut = stdout, sortedLines(string(raw))
				continue
			}
			if stdout != first || sortedLines(string(raw)) != firstOut {
				t.Errorf("bad=%v: concurrency %s differs from concurrency 1:\n%s\nwant:\n%s", bad, conc, stdout, first)
			}
		}
	}
}
