package action_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionYAML is the part of action.yml the tests read.
type actionYAML struct {
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name string            `yaml:"name"`
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

func loadAction(t *testing.T) actionYAML {
	t.Helper()
	b, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

var runMode = regexp.MustCompile(`^"\$GITHUB_ACTION_PATH/entrypoint\.sh" (\w+)$`)

type runStep struct{ id, mode string }

// runSteps are action.yml's steps that run entrypoint.sh, in order.
func runSteps(t *testing.T) []runStep {
	t.Helper()
	var out []runStep
	for _, st := range loadAction(t).Runs.Steps {
		if st.Run == "" {
			continue
		}
		m := runMode.FindStringSubmatch(strings.TrimSpace(st.Run))
		if m == nil || st.ID == "" {
			t.Fatalf("action.yml: step %q runs %q, want an id and \"$GITHUB_ACTION_PATH/entrypoint.sh\" MODE", st.Name, st.Run)
		}
		out = append(out, runStep{st.ID, m[1]})
	}
	if len(out) < 2 || out[0].mode != "go" || out[1].mode != "prepare" {
		t.Fatalf("action.yml: run steps %v, want go, then prepare first", out)
	}
	return out
}

var (
	outputRef = regexp.MustCompile(`^steps\.([\w-]+)\.outputs\.([\w-]+)$`)
	// outcomeRef is a step with no result output of its own (setup-go):
	// a literal when its outcome is failure.
	outcomeRef = regexp.MustCompile(`^\(steps\.([\w-]+)\.outcome == 'failure' && '(\w+)'\)$`)
)

// ref is one alternative of an output: steps.ID.outputs.NAME, or with
// NAME "outcome" (steps.ID.outcome == 'failure' && 'VALUE').
type ref struct{ step, name, value string }

// parseOutput reads an output's value: ${{ A || B || ... }}, each a
// steps.ID.outputs.NAME or (steps.ID.outcome == 'failure' && 'VALUE').
func parseOutput(t *testing.T, name, value string) []ref {
	t.Helper()
	v := strings.TrimSpace(value)
	if !strings.HasPrefix(v, "${{") || !strings.HasSuffix(v, "}}") {
		t.Fatalf("action.yml: output %s = %q, want ${{ steps.ID.outputs.NAME || ... }}", name, value)
	}
	var refs []ref
	for _, alt := range strings.Split(strings.TrimSpace(v[3:len(v)-2]), "||") {
		alt = strings.TrimSpace(alt)
		if m := outcomeRef.FindStringSubmatch(alt); m != nil {
			refs = append(refs, ref{m[1], "outcome", m[2]})
			continue
		}
		m := outputRef.FindStringSubmatch(alt)
		if m == nil {
			t.Fatalf("action.yml: output %s: %q is not steps.ID.outputs.NAME", name, alt)
		}
		refs = append(refs, ref{m[1], m[2], ""})
	}
	return refs
}

// actionOutputs evaluates action.yml's outputs over the steps' outputs,
// as the runner does (|| takes the first non-empty value); a step's
// "outcome" in steps is its outcome.
func actionOutputs(t *testing.T, steps map[string]map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, o := range loadAction(t).Outputs {
		for _, r := range parseOutput(t, name, o.Value) {
			v := steps[r.step][r.name]
			if r.name == "outcome" {
				v = map[bool]string{true: r.value}[v == "failure"]
			}
			if v != "" {
				out[name] = v
				break
			}
		}
	}
	return out
}

// TestActionYAML: how action.yml wires its steps. Every step that runs
// entrypoint.sh can fail with result=error, so the result output falls
// back on each of them; the build is cached with restore and save around
// it (actions/cache@v4 saves only when the whole job succeeds); setup-go
// caches nothing of its own (its cache-dependency-path would lie outside
// the workspace).
func TestActionYAML(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	ids := map[string]int{}
	for i, st := range a.Runs.Steps {
		if st.ID != "" {
			ids[st.ID] = i
		}
	}
	for name, o := range a.Outputs {
		for _, r := range parseOutput(t, name, o.Value) {
			if _, ok := ids[r.step]; !ok {
				t.Errorf("output %s reads step %s, which action.yml does not have", name, r.step)
			}
		}
	}
	// result: the last step that ran decides; any run step's error
	// shows, and so does setup-go's failure (it has no result output:
	// its outcome is read).
	var want []ref
	runs := runSteps(t)
	for _, st := range a.Runs.Steps {
		if uses, _, _ := strings.Cut(st.Uses, "@"); uses == "actions/setup-go" {
			if st.ID == "" {
				t.Errorf("setup-go step %q has no id: its failure cannot give result=error", st.Name)
			}
			want = append([]ref{{st.ID, "outcome", "error"}}, want...)
		}
		if len(runs) > 0 && st.Run != "" && st.ID == runs[0].id {
			want = append([]ref{{st.ID, "result", ""}}, want...)
			runs = runs[1:]
		}
	}
	if got := parseOutput(t, "result", a.Outputs["result"].Value); !slices.Equal(got, want) {
		t.Errorf("output result = %q: alternatives %v, want %v (one per step that can fail, the last step first)", a.Outputs["result"].Value, got, want)
	}
	if got := actionOutputs(t, map[string]map[string]string{"go": {"need": "true"}, "setup-go": {"outcome": "failure"}}); got["result"] != "error" {
		t.Errorf("setup-go failed: result %q, want error", got["result"])
	}
	if got := actionOutputs(t, map[string]map[string]string{"setup-go": {"outcome": "success"}, "check": {"result": "passed"}}); got["result"] != "passed" {
		t.Errorf("setup-go succeeded, check passed: result %q", got["result"])
	}

	var restore, save, build, setupGo = -1, -1, -1, -1
	for i, st := range a.Runs.Steps {
		uses, _, _ := strings.Cut(st.Uses, "@")
		switch {
		case uses == "actions/cache":
			t.Errorf("step %q uses actions/cache, which saves only when the job succeeds: use actions/cache/restore and actions/cache/save", st.Name)
		case uses == "actions/cache/restore":
			restore = i
		case uses == "actions/cache/save":
			save = i
			if !strings.Contains(st.If, "steps."+a.Runs.Steps[restore].ID+".outputs.cache-hit != 'true'") || !strings.Contains(st.If, "inputs.cache == 'true'") {
				t.Errorf("save step if: %q, want it only on a cache miss, with cache: true", st.If)
			}
		case uses == "actions/setup-go":
			setupGo = i
			if !strings.Contains(st.If, "steps.go.outputs.need == 'true'") || ids["go"] >= i {
				t.Errorf("setup-go if: %q, want it after step go, only when that needs Go (setup-go's Go stays on PATH)", st.If)
			}
			if st.With["cache"] != "false" {
				t.Errorf("setup-go with cache %q, want false", st.With["cache"])
			}
			for k, v := range st.With {
				if strings.Contains(v, "..") && k != "go-version-file" {
					t.Errorf("setup-go %s: %q is outside the workspace", k, v)
				}
			}
		case st.Run != "" && strings.HasSuffix(strings.TrimSpace(st.Run), " build"):
			build = i
		}
	}
	if setupGo < 0 || restore < 0 || save < 0 || build < 0 || !(setupGo < restore && restore < build && build < save && save < ids["check"]) {
		t.Errorf("steps setup-go %d, restore %d, build %d, save %d, check %d: want them in that order", setupGo, restore, build, save, ids["check"])
	}
	if restore >= 0 && save >= 0 && (a.Runs.Steps[restore].With["key"] != a.Runs.Steps[save].With["key"] || a.Runs.Steps[restore].With["path"] != a.Runs.Steps[save].With["path"]) {
		t.Errorf("restore and save differ in key or path: %v, %v", a.Runs.Steps[restore].With, a.Runs.Steps[save].With)
	}
}

// noLabelledRefs: a remote-tracking ref the action made in the workspace
// names the commit that branch has in the origin, never another one (a
// base commit from the payload is not origin/BRANCH).
func noLabelledRefs(t *testing.T, ws, origin string) {
	t.Helper()
	out, err := exec.Command("git", "-C", ws, "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/origin/").Output()
	if err != nil {
		t.Fatalf("git for-each-ref: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, sha, ok := strings.Cut(line, " ")
		if !ok || strings.HasSuffix(ref, "/HEAD") {
			continue
		}
		branch := strings.TrimPrefix(ref, "refs/remotes/origin/")
		want, err := exec.Command("git", "-C", origin, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output()
		if err != nil || strings.TrimSpace(string(want)) != sha {
			t.Errorf("%s is %s in the workspace, but branch %s is %q in the origin", ref, sha, branch, strings.TrimSpace(string(want)))
		}
	}
}

// noRunDirs: the run's temporary directories are gone.
func noRunDirs(t *testing.T, dir string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, "charter-run.*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
}

// TestGoNeeded: entrypoint.sh go answers need=false when a Go on PATH is
// at least go.mod's version (setup-go, whose Go would stay on PATH, is
// skipped), need=true when there is none or it is older.
func TestGoNeeded(t *testing.T) {
	need(t, "bash")
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/x\n\ngo 1.26.8\n\ntoolchain go1.27.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ version, need string }{
		{"go1.26.8", "false"}, {"go1.26.10", "false"}, {"go1.27", "false"}, {"go2.0.0", "false"},
		{"go1.26.7", "true"}, {"go1.9.9", "true"}, {"devel go1.27-abc", "true"}, {"", "true"},
	} {
		bin := t.TempDir()
		for _, tool := range []string{"awk", "dirname"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("%s: %v", tool, err)
			}
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
		if tc.version != "" {
			script := "#!/bin/sh\n[ \"$1 $2\" = \"env GOVERSION\" ] && echo '" + tc.version + "'\n"
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		r := newRunner(t, t.TempDir(), t.TempDir(), "push", map[string]any{})
		res := r.run(t, "go", "PATH="+bin, "CHARTER_SOURCE="+src)
		if res.code != 0 || res.outputs["need"] != tc.need {
			t.Errorf("go %q: exit %d, need %q, want %q\n%s", tc.version, res.code, res.outputs["need"], tc.need, res)
		}
	}
}
