package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/cli"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// TestVersionFlag: charter --version prints what charter version prints;
// charter version -o json is the same as JSON.
func TestVersionFlag(t *testing.T) {
	v, c := buildinfo.Get()
	want := "charter " + v + " (" + c + ")\n"
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		if code, out, errs := runCLI(args...); code != cli.ExitOK || out != want || errs != "" {
			t.Errorf("%v: exit %d, %q, %q; want %q", args, code, out, errs, want)
		}
	}
	// --version honours -o json wherever -o is, as charter version does.
	for _, args := range [][]string{{"version", "-o", "json"}, {"--version", "-o", "json"}, {"-o", "json", "--version"},
		{"-v", "--output=json"}, {"--output", "json", "-v"}} {
		code, out, errs := runCLI(args...)
		var doc struct{ Version, Commit string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != cli.ExitOK || doc.Version != v || doc.Commit != c || errs != "" {
			t.Errorf("%v: exit %d, %v: %q, %q", args, code, err, out, errs)
		}
	}
	if code, _, errs := runCLI("--version", "-o", "yaml"); code != cli.ExitError || !strings.Contains(errs, `invalid -o/--output "yaml"`) {
		t.Errorf("--version -o yaml: exit %d, %q", code, errs)
	}
	// Without --version the root prints its help, as before.
	if code, out, _ := runCLI(); code != cli.ExitOK || !strings.Contains(out, "Available Commands:") {
		t.Errorf("charter: exit %d:\n%s", code, out)
	}
}

// TestHelpTopic: charter help names the closest commands for a mistyped
// topic and exits 2, as a mistyped command does; a real topic prints its
// command's help.
func TestHelpTopic(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "chekc"}, `charter: unknown help topic "chekc": did you mean check? (see charter --help)` + "\n"},
		{[]string{"help", "lineage", "grph"}, `charter: unknown help topic "lineage grph": did you mean lineage graph? (see charter lineage --help)` + "\n"},
		{[]string{"help", "zzzzzz"}, `charter: unknown help topic "zzzzzz" (see charter --help)` + "\n"},
	} {
		if code, out, errs := runCLI(tc.args...); code != cli.ExitError || errs != tc.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, out, errs, tc.want)
		}
	}
	for _, args := range [][]string{{"help", "check"}, {"help", "lineage", "graph"}, {"help"}} {
		_, want, _ := runCLI(append(args[1:], "--help")...)
		if code, out, errs := runCLI(args...); code != cli.ExitOK || out != want || errs != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout differs from --help:\n%s", args, code, errs, out)
		}
	}
	// The topic completes with command names.
	code, out, _ := runCLI("__complete", "help", "lin")
	if code != cli.ExitOK || !strings.HasPrefix(out, "lineage\t") {
		t.Errorf("__complete help lin: exit %d, %q", code, out)
	}
}

// TestDidYouMean: a mistyped command names the closest ones, on one line,
// at the root and below.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chek"}, `charter: unknown command "chek" for "charter": did you mean check? (see charter --help)` + "\n"},
		{[]string{"subjcts"}, `charter: unknown command "subjcts" for "charter": did you mean subjects? (see charter --help)` + "\n"},
		{[]string{"lineage", "grph"}, `charter: unknown command "grph" for "charter lineage": did you mean graph? (see charter lineage --help)` + "\n"},
		{[]string{"zzzzzz"}, `charter: unknown command "zzzzzz" for "charter"` + "\n"},
	} {
		if code, _, errs := runCLI(tc.args...); code != cli.ExitError || errs != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestServeHelpShowsOnlyServeFlags: serve's help has its own flags and
// none of the client's, which other commands' help keeps.
func TestServeHelpShowsOnlyServeFlags(t *testing.T) {
	_, out, _ := runCLI("serve", "--help")
	for _, no := range []string{"--registry", "--token", "--user", "--ca-file", "--output", "--timeout", "Global Flags"} {
		if strings.Contains(out, no) {
			t.Errorf("serve --help shows %s:\n%s", no, out)
		}
	}
	if !strings.Contains(out, "--listen") || !strings.Contains(out, "--auth-config") {
		t.Errorf("serve --help lacks its own flags:\n%s", out)
	}
	_, out, _ = runCLI("subjects", "--help")
	if !strings.Contains(out, "--registry") || !strings.Contains(out, "--timeout") {
		t.Errorf("subjects --help lacks the global flags:\n%s", out)
	}
	// Hiding is for serve's help only: the next help in the same tree
	// still lists them.
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	var b bytes.Buffer
	root.SetOut(&b)
	root.SetArgs([]string{"serve", "--help"})
	_ = root.Execute()
	b.Reset()
	root.SetArgs([]string{"subjects", "--help"})
	_ = root.Execute()
	if !strings.Contains(b.String(), "--registry") {
		t.Errorf("after serve --help, subjects --help lacks --registry:\n%s", b.String())
	}
}

// TestTimeout: --timeout and CHARTER_TIMEOUT bound each registry request;
// the flag beats the variable; bad values are one line and exit 2.
func TestTimeout(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[]`)
	}))
	defer slow.Close()
	start := time.Now()
	code, _, errs := runCLI("subjects", "--registry", slow.URL, "--timeout", "200ms")
	if code != cli.ExitError || !strings.Contains(errs, "Timeout") && !strings.Contains(errs, "deadline") || time.Since(start) > 2*time.Second {
		t.Errorf("--timeout 200ms: exit %d after %s, %q", code, time.Since(start), errs)
	}
	t.Setenv("CHARTER_TIMEOUT", "0.2")
	start = time.Now()
	if code, _, _ := runCLI("subjects", "--registry", slow.URL); code != cli.ExitError || time.Since(start) > 2*time.Second {
		t.Errorf("CHARTER_TIMEOUT=0.2: exit %d after %s", code, time.Since(start))
	}
	// The flag beats the variable: 5s outlasts the slow answer.
	if code, out, errs := runCLI("subjects", "--registry", slow.URL, "--timeout", "5s", "-o", "json"); code != cli.ExitOK || !strings.Contains(out, `"subjects": []`) {
		t.Errorf("--timeout 5s over CHARTER_TIMEOUT: exit %d, %q, %q", code, out, errs)
	}
	for _, tc := range []struct {
		env, flag, want string
	}{
		{"", "soon", `charter: invalid --timeout "soon": want a positive duration such as 30s, or a number of seconds` + "\n"},
		{"", "-1s", `charter: invalid --timeout "-1s": want a positive duration such as 30s, or a number of seconds` + "\n"},
		{"later", "", `charter: invalid CHARTER_TIMEOUT "later": want a positive duration such as 30s, or a number of seconds` + "\n"},
	} {
		t.Setenv("CHARTER_TIMEOUT", tc.env)
		args := []string{"subjects", "--registry", slow.URL}
		if tc.flag != "" {
			args = append(args, "--timeout", tc.flag)
		}
		if code, _, errs := runCLI(args...); code != cli.ExitError || errs != tc.want {
			t.Errorf("%+v: exit %d, %q, want %q", tc, code, errs, tc.want)
		}
	}
}

// TestEmptyArgumentsRefused: every command that takes arguments refuses
// an empty one in each position before it does anything: one line naming
// the argument as its usage does, exit 2, no request to the registry.
func TestEmptyArgumentsRefused(t *testing.T) {
	var hits atomic.Int64
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer reg.Close()
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	flagInUse := regexp.MustCompile(`\[?--?[a-z][a-z-]*(?:[ =][A-Z][A-Z_,.]*)?\]?`)
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if !c.HasParent() || c.HasSubCommands() || !c.Runnable() {
			return
		}
		_, use, _ := strings.Cut(c.Use, " ")
		names := strings.Fields(flagInUse.ReplaceAllString(use, " "))
		path := strings.Fields(strings.TrimPrefix(c.CommandPath(), "charter"))
		for i := range names {
			args := slices.Clone(path)
			for j := range names {
				if j == i {
					args = append(args, "")
				} else {
					args = append(args, "x")
				}
			}
			args = append(args, "--registry", reg.URL)
			code, out, errs := runCLI(args...)
			name := strings.TrimSuffix(strings.Trim(names[i], "[]"), "...")
			want := "charter: " + strings.Join(path, " ") + ": the " + name + " argument is empty\n"
			if code != cli.ExitError || errs != want || out != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", args, code, out, errs, want)
			}
			checked++
		}
	}
	walk(root)
	if checked < 30 {
		t.Errorf("only %d empty arguments tried", checked)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the registry got %d requests for empty arguments", n)
	}
	// An optional argument left out is not confused with the next one.
	if code, _, errs := runCLI("mode", "set", "", "--registry", reg.URL); code != cli.ExitError || errs != "charter: mode set: the MODE argument is empty\n" {
		t.Errorf("mode set \"\": exit %d, %q", code, errs)
	}
}
