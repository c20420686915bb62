// Package action_test runs the CI action's entry script as GitHub Actions
// would, end to end: for each event the action supports, a temporary
// origin repository, a depth-1 clone of it (actions/checkout's default),
// the GITHUB_* files and variables the runner provides, an event payload
// shaped as GitHub sends it, and a fake of GitHub's REST API on 127.0.0.1
// for the pull-request comment. The tests assert the annotations, the
// step summary, the step outputs, the SARIF file, the PATH entry, the exit
// status and the version charter prints.
package action_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/internal/ghfake"
	"github.com/charter-dev/charter/action/project/projecttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(projecttest.Git(t, dir, args...))
}

// origin is the repository the workflow runs for: main holds the
// sample's base (testdata/sample/base), branch feature its head (a change
// that breaks compatibility twice and the billing consumer's contract
// once), and refs/pull/7/merge the merge commit GitHub makes for pull
// request #7 (feature into main).
type origin struct {
	dir        string
	base, head string // commits of main and feature
	merge      string // refs/pull/7/merge
	url        string // file:// URL
}

func newOrigin(t *testing.T) origin {
	t.Helper()
	dir := projecttest.GitRepo(t, "testdata/sample/base", "testdata/sample/head")
	o := origin{dir: dir, url: "file://" + dir}
	o.head = git(t, dir, "rev-parse", "HEAD")
	o.base = git(t, dir, "rev-parse", "HEAD~1")
	git(t, dir, "branch", "-q", "feature", o.head)
	git(t, dir, "checkout", "-q", "--detach", o.base)
	git(t, dir, "branch", "-q", "-f", "main", o.base)
	git(t, dir, "merge", "-q", "--no-ff", "-m", "Merge feature into main", "feature")
	o.merge = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "update-ref", "refs/pull/7/merge", o.merge)
	// The origin's work tree stays detached, so tests may move any branch.
	return o
}

// clone makes the workspace as actions/checkout does by default: a
// depth-1 clone of one ref, with origin as its remote.
func (o origin) clone(t *testing.T, ref string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "workspace")
	if strings.HasPrefix(ref, "refs/pull/") {
		git(t, t.TempDir(), "clone", "-q", "--depth", "1", "--no-checkout", o.url, ws)
		git(t, ws, "fetch", "-q", "--no-tags", "--depth=1", "origin", "+"+ref+":refs/remotes/pull/7/merge")
		git(t, ws, "checkout", "-q", "--detach", "refs/remotes/pull/7/merge")
	} else {
		git(t, t.TempDir(), "clone", "-q", "--depth", "1", "--single-branch", "--branch", ref, o.url, ws)
	}
	if got := git(t, ws, "rev-parse", "--is-shallow-repository"); got != "true" {
		t.Fatalf("clone of %s is not shallow", ref)
	}
	return ws
}

// runner is one job's GITHUB_* environment.
type runner struct {
	dir, ws                       string
	output, summary, path, events string
	env                           []string
}

func newRunner(t *testing.T, home, ws, event string, payload any, env ...string) *runner {
	t.Helper()
	dir := t.TempDir()
	r := &runner{
		dir:     dir,
		ws:      ws,
		output:  filepath.Join(dir, "github_output"),
		summary: filepath.Join(dir, "step_summary.md"),
		path:    filepath.Join(dir, "github_path"),
		events:  filepath.Join(dir, "event.json"),
	}
	for _, f := range []string{r.output, r.summary, r.path} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.events, b, 0o644); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dir, "runner_temp")
	if err := os.Mkdir(temp, 0o755); err != nil {
		t.Fatal(err)
	}
	r.env = append(cleanEnv(),
		"CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE="+ws,
		"GITHUB_EVENT_NAME="+event,
		"GITHUB_EVENT_PATH="+r.events,
		"GITHUB_OUTPUT="+r.output,
		"GITHUB_STEP_SUMMARY="+r.summary,
		"GITHUB_PATH="+r.path,
		"GITHUB_REPOSITORY=acme/shop",
		"GITHUB_SERVER_URL=file:///nonexistent-github-server",
		"GITHUB_RUN_ID=4242",
		"RUNNER_TEMP="+temp,
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"CHARTER_HOME="+home,
		"NO_COLOR=1",
	)
	r.env = append(r.env, env...)
	return r
}

// cleanEnv is the test's environment without what the runner, the action
// or charter read, so that a test run inside GitHub Actions or with a
// registry configured sees only what the test sets; git ignores the
// user's and the system's configuration.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "CHARTER_") || strings.HasPrefix(k, "GIT_") || k == "CI" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
}

type result struct {
	code            int
	stdout, stderr  string
	outputs         map[string]string
	summary, gopath string
	// raw is the text each step wrote to GITHUB_OUTPUT, by step ID (one
	// step's under "" when run alone).
	raw map[string]string
}

// run runs entrypoint.sh MODE with the runner's environment.
func (r *runner) run(t *testing.T, mode string, env ...string) result {
	t.Helper()
	script, err := filepath.Abs("entrypoint.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, mode)
	cmd.Dir = r.dir
	cmd.Env = append(append([]string(nil), r.env...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), outputs: map[string]string{}, raw: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(r.output)
	if err != nil {
		t.Fatal(err)
	}
	res.raw[""] = string(out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			res.outputs[k] = v
		}
	}
	md, err := os.ReadFile(r.summary)
	if err != nil {
		t.Fatal(err)
	}
	res.summary = string(md)
	p, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	res.gopath = string(p)
	return res
}

func (r result) String() string {
	return "stdout:\n" + r.stdout + "\nstderr:\n" + r.stderr
}

// annotations are the workflow commands of a run that annotate (error,
// warning, notice), and charter's verdict line.
func annotations(stdout string) string {
	var b strings.Builder
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "::error ") || strings.HasPrefix(line, "::warning ") || strings.HasPrefix(line, "::notice ") || strings.HasPrefix(line, "Charter schema check ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// sarifResults reads the SARIF file and returns its results' rule IDs.
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("SARIF file: %v", err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Version string } `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("SARIF file: %v, version %q\n%s", err, log.Version, b)
	}
	if v := log.Runs[0].Tool.Driver.Version; v != actionRef {
		t.Errorf("SARIF tool version %q, want %q", v, actionRef)
	}
	var ids []string
	for _, r := range log.Runs[0].Results {
		ids = append(ids, r.RuleID)
	}
	return ids
}

// The action's ref as the runner would give it; the version stamped into
// the binary.
const actionRef = "v1.2.3-test"

// sourceCommit is the commit TestAction has prepare stamp (through
// CHARTER_COMMIT: this tree's HEAD may move while the test runs);
// TestPrepare covers how prepare finds the commit itself.
const sourceCommit = "c0ffee0000000000000000000000000000c0ffee"

var versionLine = regexp.MustCompile(`(?m)^charter (\S+) \((\S+)\)$`)

// prBase is the part of a pull_request payload the action reads, as
// GitHub sends it (a real payload carries much more).
func prPayload(o origin) map[string]any {
	return map[string]any{
		"action": "synchronize",
		"number": 7,
		"pull_request": map[string]any{
			"number":   7,
			"state":    "open",
			"html_url": "https://github.com/acme/shop/pull/7",
			"base":     map[string]any{"ref": "main", "sha": o.base, "repo": map[string]any{"full_name": "acme/shop"}},
			"head":     map[string]any{"ref": "feature", "sha": o.head, "repo": map[string]any{"full_name": "acme/shop"}},
		},
		"repository": map[string]any{"full_name": "acme/shop", "default_branch": "main", "private": false},
		"sender":     map[string]any{"login": "octocat", "type": "User"},
	}
}

func pushPayload(o origin, ref, before, after string, created bool) map[string]any {
	return map[string]any{
		"ref":         ref,
		"before":      before,
		"after":       after,
		"created":     created,
		"deleted":     false,
		"forced":      false,
		"base_ref":    nil,
		"compare":     "https://github.com/acme/shop/compare/" + before[:12] + "..." + after[:12],
		"commits":     []any{map[string]any{"id": after, "message": "commit 2", "distinct": true}},
		"head_commit": map[string]any{"id": after, "message": "commit 2"},
		"repository":  map[string]any{"full_name": "acme/shop", "default_branch": "main", "master_branch": "main"},
		"pusher":      map[string]any{"name": "octocat"},
	}
}

const zeros = "0000000000000000000000000000000000000000"

// wantErrors are the sample's findings in every event that compares head
// with base.
var wantErrors = []string{"JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED", "CONTRACT_FIELD_MISSING", "AVRO_READER_FIELD_MISSING_DEFAULT"}

// TestAction runs the action's two steps (prepare, then check) for every
// event it supports. The subtests share one build directory, as jobs
// share the actions/cache entry: the first builds charter, the others use
// the cached binary.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds charter; skipped with -short")
	}
	need(t, "bash", "git", "go")
	o := newOrigin(t)
	home := filepath.Join(t.TempDir(), "charter-action")
	commit := sourceCommit
	wantVersion := "charter " + actionRef + " (" + commit + ")"
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gh := ghfake.New(t, "acme/shop", "ghs_test_token")
	gh.Seed(7, "LGTM, but let the gate judge")

	// steps runs action.yml's run steps (prepare, build, check) in its
	// order, as the runner does: prepare's outputs passed on, each step
	// with a GITHUB_OUTPUT of its own, the steps after a failed one
	// skipped. The result is the last step's that ran, with the stdout of
	// all of them and the action's outputs as action.yml maps them.
	steps := func(t *testing.T, r *runner, env ...string) result {
		t.Helper()
		base := []string{"CHARTER_SOURCE=" + src, "CHARTER_ACTION_REF=" + actionRef, "CHARTER_ACTION_REPOSITORY=charter-dev/charter",
			"CHARTER_GITHUB_TOKEN=ghs_test_token", "GITHUB_API_URL=" + gh.URL}
		byStep := map[string]map[string]string{}
		raw := map[string]string{}
		var res result
		var stdout strings.Builder
		for _, st := range runSteps(t) {
			if err := os.WriteFile(r.output, nil, 0o644); err != nil { // a new step, a new file
				t.Fatal(err)
			}
			var stepEnv []string
			if st.mode == "go" {
				stepEnv = append(append([]string(nil), base...), env...)
			} else if st.mode == "prepare" {
				stepEnv = append(append(append([]string(nil), base...), "CHARTER_COMMIT="+commit), env...)
			} else {
				p := byStep["prepare"]
				stepEnv = append(append(append([]string(nil), base...), "CHARTER_VERSION="+p["version"], "CHARTER_COMMIT="+p["commit"], "CHARTER_HOME="+p["dir"]), env...)
			}
			res = r.run(t, st.mode, stepEnv...)
			stdout.WriteString(res.stdout)
			byStep[st.id], raw[st.id] = res.outputs, res.raw[""]
			ownHome := false
			for _, kv := range env {
				ownHome = ownHome || strings.HasPrefix(kv, "CHARTER_HOME=")
			}
			if st.mode == "prepare" && res.code == 0 {
				if res.outputs["version"] != actionRef || res.outputs["commit"] != commit || (res.outputs["dir"] != home && !ownHome) ||
					!strings.HasPrefix(res.outputs["key"], "charter-Linux-X64-go") || !strings.HasSuffix(res.outputs["key"], "-"+actionRef+"-"+commit) {
					t.Fatalf("prepare outputs %v", res.outputs)
				}
			}
			if res.code != 0 {
				break
			}
		}
		res.stdout, res.raw = stdout.String(), raw
		res.outputs = actionOutputs(t, byStep)
		return res
	}
	// common checks every run that got to charter check.
	common := func(t *testing.T, r *runner, res result, against string) {
		t.Helper()
		if got := versionLine.FindString(res.stdout); got != wantVersion {
			t.Errorf("version printed %q, want %q\n%s", got, wantVersion, res)
		}
		if res.outputs["version"] != actionRef {
			t.Errorf("version output %q", res.outputs["version"])
		}
		if res.gopath != filepath.Join(home, "bin")+"\n" {
			t.Errorf("GITHUB_PATH %q, want %s", res.gopath, filepath.Join(home, "bin"))
		}
		if res.outputs["against"] != against {
			t.Errorf("against %q, want %q", res.outputs["against"], against)
		}
		if want := filepath.Join(r.dir, "runner_temp", "charter.sarif"); res.outputs["sarif-file"] != want {
			t.Errorf("sarif-file %q, want %q", res.outputs["sarif-file"], want)
		}
		noLabelledRefs(t, r.ws, o.dir)
		noRunDirs(t, filepath.Join(r.dir, "runner_temp"))
	}

	t.Run("pull_request", func(t *testing.T) {
		ws := o.clone(t, "refs/pull/7/merge")
		// A stale payload: its base.sha is a commit main no longer is (here
		// one holding the head's schemas, against which the pull request
		// would change nothing). The merge commit's first parent is the
		// base GitHub merged with.
		stale := git(t, o.dir, "commit-tree", "-m", "stale main", o.head+"^{tree}")
		git(t, o.dir, "update-ref", "refs/heads/old-main", stale)
		payload := prPayload(o)
		payload["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = stale
		r := newRunner(t, home, ws, "pull_request", payload, "GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=feature", "GITHUB_REF_NAME=7/merge",
			"GITHUB_REF=refs/pull/7/merge", "GITHUB_SHA="+o.merge)
		res := steps(t, r, "CHARTER_COMMENT=true")
		if res.code != 1 {
			t.Fatalf("exit %d, want 1 (errors found)\n%s", res.code, res)
		}
		if !strings.Contains(res.stdout, "::group::go build charter "+actionRef+" ("+commit+")") {
			t.Errorf("the first run did not build charter:\n%s", res.stdout)
		}
		common(t, r, res, "git:"+o.base)
		if !strings.Contains(res.stdout, "Base: "+o.base+", the first parent of the merge commit refs/pull/7/merge\n") {
			t.Errorf("the baseline is not the merge commit's first parent:\n%s", res.stdout)
		}
		golden(t, "pull_request.annotations", annotations(res.stdout))
		golden(t, "summary.golden.md", res.summary)
		for k, v := range map[string]string{"result": "failed", "errors": "3", "warnings": "0", "notices": "0", "subjects": "2"} {
			if res.outputs[k] != v {
				t.Errorf("output %s=%q, want %q", k, res.outputs[k], v)
			}
		}
		if got := sarifResults(t, res.outputs["sarif-file"]); strings.Join(got, " ") != strings.Join(wantErrors, " ") {
			t.Errorf("SARIF results %v, want %v", got, wantErrors)
		}
		// The clone was deepened by one: the merge commit's parents, the
		// base and the head.
		if got := git(t, ws, "rev-list", "--count", "--all"); got != "3" {
			t.Errorf("the workspace holds %s commits, want 3 (the merge, the base and the head)", got)
		}
		// One comment of the gate's, beside the reviewer's, carrying the
		// marker and the Markdown summary.
		cs := gh.Comments(7)
		if len(cs) != 2 || !strings.HasPrefix(cs[1].Body, "<!-- charter-schema-check dir=. -->\n### ❌ Charter schema check failed") ||
			!strings.Contains(cs[1].Body, "`CONTRACT_FIELD_MISSING`") {
			t.Fatalf("comments after the first run: %+v", cs)
		}
		if res.outputs["comment-url"] != cs[1].HTMLURL {
			t.Errorf("comment-url %q, want %q", res.outputs["comment-url"], cs[1].HTMLURL)
		}
		first := cs[1]

		// The next push to the pull request: the binary comes from the
		// cache, and the same comment is updated with the new summary.
		if err := os.WriteFile(filepath.Join(ws, "schemas", "orders.avsc"), []byte(`{"type":"record","name":"Order","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"customerEmail","type":"string"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{r.summary, r.path} {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res = steps(t, r, "CHARTER_COMMENT=true")
		if !strings.Contains(res.stdout, "Using the cached "+wantVersion) || strings.Contains(res.stdout, "::group::go build") {
			t.Errorf("the second run rebuilt charter:\n%s", res.stdout)
		}
		cs = gh.Comments(7)
		if len(cs) != 2 || cs[1].ID != first.ID || cs[1].Body == first.Body || !strings.HasPrefix(cs[1].Body, "<!-- charter-schema-check dir=. -->\n") {
			t.Fatalf("comments after the second run: %+v (first %+v)", cs, first)
		}
		var methods []string
		for _, req := range gh.Requests() {
			m, _, _ := strings.Cut(req, " ")
			methods = append(methods, m)
		}
		if got := strings.Join(methods, " "); got != "GET POST GET PATCH" {
			t.Errorf("API calls %s, want GET POST GET PATCH (list, create, list, update)", got)
		}
	})

	t.Run("push", func(t *testing.T) {
		ws := o.clone(t, "feature")
		r := newRunner(t, home, ws, "push", pushPayload(o, "refs/heads/feature", o.base, o.head, false), "GITHUB_REF_NAME=feature", "GITHUB_REF=refs/heads/feature")
		res := steps(t, r)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res)
		}
		common(t, r, res, "git:"+o.base)
		if !strings.Contains(res.stdout, "git fetch --depth=1 origin "+o.base+" (origin)") {
			t.Errorf("the commit before the push was not fetched:\n%s", res.stdout)
		}
		if got := annotations(res.stdout); strings.Count(got, "::error ") != 3 || !strings.Contains(got, "against git:"+o.base+"\n") {
			t.Errorf("annotations:\n%s", got)
		}
		if res.outputs["result"] != "failed" || !strings.HasPrefix(res.summary, "### ❌ Charter schema check failed") {
			t.Errorf("outputs %v, summary:\n%s", res.outputs, res.summary)
		}
	})

	t.Run("push of a new branch", func(t *testing.T) {
		ws := o.clone(t, "feature")
		r := newRunner(t, home, ws, "push", pushPayload(o, "refs/heads/feature", zeros, o.head, true), "GITHUB_REF_NAME=feature")
		res := steps(t, r)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res)
		}
		common(t, r, res, "git:origin/main")
		golden(t, "push_new_branch.annotations", annotations(res.stdout))
		if got := sarifResults(t, res.outputs["sarif-file"]); len(got) != 3 {
			t.Errorf("SARIF results %v", got)
		}
	})

	t.Run("push of a new repository", func(t *testing.T) {
		// The default branch's first push: nothing to compare with, every
		// subject is new (notices) and the check passes.
		ws := o.clone(t, "main")
		r := newRunner(t, home, ws, "push", pushPayload(o, "refs/heads/main", zeros, o.base, true), "GITHUB_REF_NAME=main")
		res := steps(t, r)
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s", res.code, res)
		}
		// The empty baseline is named, not shown as the run's temporary
		// directory.
		common(t, r, res, "none (first push of main)")
		got := annotations(res.stdout)
		if !strings.Contains(got, "::notice title=Charter schema check::first push of main: there is no earlier commit to compare with, so every subject is new\n") ||
			strings.Count(got, "title=SUBJECT_ADDED") != 2 || !strings.Contains(got, "Charter schema check passed: 0 errors, 1 warning, 2 notices in 2 subjects (2 added), against none (first push of main)\n") {
			t.Errorf("annotations:\n%s", got)
		}
		if !strings.Contains(res.summary, "against `none (first push of main)`") {
			t.Errorf("summary:\n%s", res.summary)
		}
		for _, text := range []string{res.stdout, res.stderr, res.summary} {
			if strings.Contains(text, "charter-run.") || strings.Contains(text, "empty-baseline") {
				t.Errorf("the run's temporary directory shows:\n%s", text)
			}
		}
		if res.outputs["result"] != "passed" || res.outputs["notices"] != "2" {
			t.Errorf("outputs %v", res.outputs)
		}
	})

	t.Run("merge_group", func(t *testing.T) {
		queue := "gh-readonly-queue/main/pr-7-" + o.base
		git(t, o.dir, "branch", "-q", "-f", queue, o.merge)
		ws := o.clone(t, queue)
		payload := map[string]any{
			"action": "checks_requested",
			"merge_group": map[string]any{
				"head_sha": o.merge, "head_ref": "refs/heads/" + queue,
				"base_sha": o.base, "base_ref": "refs/heads/main",
				"head_commit": map[string]any{"id": o.merge, "message": "Merge pull request #7"},
			},
			"repository": map[string]any{"full_name": "acme/shop", "default_branch": "main"},
		}
		r := newRunner(t, home, ws, "merge_group", payload, "GITHUB_REF_NAME="+queue)
		res := steps(t, r)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res)
		}
		common(t, r, res, "git:"+o.base)
		if got := git(t, ws, "rev-parse", "refs/charter/baseline"); got != o.base {
			t.Errorf("refs/charter/baseline = %s, want %s", got, o.base)
		}
		if got := annotations(res.stdout); strings.Count(got, "::error ") != 3 {
			t.Errorf("annotations:\n%s", got)
		}
	})

	t.Run("workflow_dispatch", func(t *testing.T) {
		// On the default branch: its previous commit, deepening the clone.
		git(t, o.dir, "branch", "-q", "-f", "trunk", o.head)
		ws := o.clone(t, "trunk")
		payload := map[string]any{"inputs": map[string]any{}, "ref": "refs/heads/trunk", "repository": map[string]any{"full_name": "acme/shop", "default_branch": "trunk"}, "workflow": ".github/workflows/schemas.yml"}
		r := newRunner(t, home, ws, "workflow_dispatch", payload, "GITHUB_REF_NAME=trunk", "GITHUB_REF_TYPE=branch")
		res := steps(t, r, "CHARTER_FAIL_ON=warning", "CHARTER_EVIDENCE=true")
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res)
		}
		common(t, r, res, "git:HEAD~1")
		// evidence: true reads 100 events per pair: the annotations
		// carry the counterexamples, the log the counts.
		if got := annotations(res.stdout); !strings.Contains(got, `(forward)%0Afix: keep each writer subschema, or a wider one, in the reader%0Acounterexample: {"id":"","tier":"bronze"} is refused at #/properties/tier`) ||
			!strings.Contains(res.stdout, "evidence for customer-value: 200 generated events over 2 pairs: 180 equal, 0 with the reader's default, 0 with loss, 20 refused") {
			t.Errorf("evidence: true:\n%s", res.stdout)
		}
		if !strings.Contains(res.stdout, "git fetch --deepen=1 origin "+o.head+" (origin)") {
			t.Errorf("the clone was not deepened:\n%s", res.stdout)
		}
		// On another branch: the default branch.
		git(t, o.dir, "branch", "-q", "-f", "main", o.base)
		ws = o.clone(t, "feature")
		payload["ref"] = "refs/heads/feature"
		payload["repository"] = map[string]any{"default_branch": "main"}
		r = newRunner(t, home, ws, "workflow_dispatch", payload, "GITHUB_REF_NAME=feature", "GITHUB_REF_TYPE=branch")
		res = steps(t, r, "CHARTER_COMMENT=true")
		if res.code != 1 {
			t.Fatalf("other branch: exit %d\n%s", res.code, res)
		}
		common(t, r, res, "git:origin/main")
		if !strings.Contains(res.stdout, "::notice title=Charter schema check::comment: true: a workflow_dispatch event has no pull request to comment on") {
			t.Errorf("no notice for comment without a pull request:\n%s", res.stdout)
		}
	})

	// Every failure path: one ::error annotation, a step summary, result=error
	// and exit status 2.
	failure := func(t *testing.T, res result, want string) {
		t.Helper()
		if res.code != 2 {
			t.Errorf("exit %d, want 2\n%s", res.code, res)
		}
		errs := regexp.MustCompile(`(?m)^::error title=Charter schema check::.*$`).FindAllString(res.stdout, -1)
		if len(errs) != 1 || !strings.Contains(errs[0], want) {
			t.Errorf("error annotations %q, want one containing %q\n%s", errs, want, res)
		}
		if !strings.HasPrefix(res.summary, "### ❌ Charter schema check could not run\n\n") || !strings.Contains(res.summary, want) ||
			strings.Count(res.summary, "### ❌ Charter schema check could not run") != 1 {
			t.Errorf("summary, want one \"could not run\" section:\n%s", res.summary)
		}
		if res.outputs["result"] != "error" {
			t.Errorf("result output %q, want error", res.outputs["result"])
		}
		n := 0
		for _, text := range res.raw {
			n += len(regexp.MustCompile(`(?m)^result=`).FindAllString(text, -1))
		}
		if n != 1 {
			t.Errorf("%d result lines in the steps' outputs %q, want 1", n, res.raw)
		}
	}

	t.Run("not a git checkout", func(t *testing.T) {
		// The workflow forgot actions/checkout: the workspace holds no
		// repository, whatever the event.
		for _, tc := range []struct {
			event   string
			payload map[string]any
		}{
			{"workflow_dispatch", map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"default_branch": "main"}}},
			{"", map[string]any{}},
			{"push", pushPayload(o, "refs/heads/main", o.base, o.head, false)},
			{"pull_request", prPayload(o)},
		} {
			ws := t.TempDir()
			projecttest.CopyTree(t, "testdata/sample/head", ws)
			r := newRunner(t, home, ws, tc.event, tc.payload, "GITHUB_REF_NAME=main", "GITHUB_BASE_REF=main")
			res := steps(t, r)
			failure(t, res, "the workspace "+ws+" is not a git checkout: add actions/checkout before this step")
			if strings.Contains(res.stdout+res.stderr, "fatal:") || strings.Contains(res.stdout, "first commit") {
				t.Errorf("%s: git's complaint or a first-commit notice shows:\n%s", tc.event, res)
			}
		}
	})

	t.Run("revision not in the history", func(t *testing.T) {
		// feature has two commits: HEAD~2 fetches fine, and is not there.
		for _, rev := range []string{"HEAD~2", "HEAD~5", "HEAD^2"} {
			ws := o.clone(t, "feature")
			r := newRunner(t, home, ws, "workflow_dispatch", map[string]any{"ref": "refs/heads/feature"}, "GITHUB_REF_NAME=feature")
			res := steps(t, r, "CHARTER_AGAINST=git:"+rev)
			failure(t, res, "the baseline git:"+rev+" does not exist in the repository's history (HEAD has 2 commits in all)")
			if strings.Contains(res.stdout, "fetching it failed") {
				t.Errorf("%s: blamed on the fetch:\n%s", rev, res)
			}
		}
	})

	t.Run("runner files missing", func(t *testing.T) {
		// RUNNER_TEMP that does not exist: one section, one result line.
		ws := o.clone(t, "feature")
		r := newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main", "RUNNER_TEMP=/nonexistent/charter-runner-temp")
		failure(t, steps(t, r), "cannot make a temporary directory in /nonexistent/charter-runner-temp")
		// A GITHUB_OUTPUT that cannot be written: still exit 2 (not 1,
		// which means findings), one error.
		for _, mode := range []string{"prepare", "build", "check"} {
			r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
			res := r.run(t, mode, "GITHUB_OUTPUT=/nonexistent/out", "CHARTER_SOURCE="+src, "CHARTER_VERSION="+actionRef, "CHARTER_COMMIT="+commit)
			errs := regexp.MustCompile(`(?m)^::error .*$`).FindAllString(res.stdout, -1)
			if res.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "cannot write GITHUB_OUTPUT (/nonexistent/out)") ||
				strings.Count(res.summary, "### ❌ Charter schema check could not run") != 1 {
				t.Errorf("%s with GITHUB_OUTPUT=/nonexistent/out: exit %d, errors %q, summary:\n%s\n%s", mode, res.code, errs, res.summary, res)
			}
		}
		// A command substitution that fails (go env, in prepare) is one
		// error, not one from the subshell and one from the script; the
		// action's result output is error though check never ran.
		fake := t.TempDir()
		if err := os.WriteFile(filepath.Join(fake, "go"), []byte("#!/bin/sh\necho 'go: broken toolchain' >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		failure(t, steps(t, r, "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH")), "the action failed unexpectedly (entrypoint.sh line ")
	})

	t.Run("shallow clone that cannot fetch", func(t *testing.T) {
		ws := o.clone(t, "feature")
		git(t, ws, "remote", "set-url", "origin", "file:///nonexistent/charter-origin")
		r := newRunner(t, home, ws, "push", pushPayload(o, "refs/heads/feature", o.base, o.head, false), "GITHUB_REF_NAME=feature")
		res := steps(t, r)
		failure(t, res, "the baseline (the commit before the push, "+o.base+") is not in this checkout and fetching it failed: set fetch-depth: 0 on actions/checkout")
		if !strings.Contains(res.summary, "does not appear to be a git repository") && !strings.Contains(res.summary, "fatal:") {
			t.Errorf("the summary lacks git's error:\n%s", res.summary)
		}
	})

	t.Run("no charter.yaml", func(t *testing.T) {
		ws := o.clone(t, "feature")
		if err := os.Mkdir(filepath.Join(ws, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(ws, "charter.yaml")); err != nil {
			t.Fatal(err)
		}
		r := newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		res := steps(t, r, "CHARTER_DIR=empty", "CHARTER_COMMENT=true")
		failure(t, res, "charter check could not run against git:"+o.base+": charter: no charter.yaml found in")
		// comment: true: the gate's comment (this working-directory's)
		// says the check could not run, and why.
		var found bool
		for _, c := range gh.Comments(7) {
			if strings.HasPrefix(c.Body, "<!-- charter-schema-check dir=empty -->\n### ❌ Charter schema check could not run\n\ncharter check could not run against git:"+o.base+": charter: no charter.yaml found in") {
				found = true
				if res.outputs["comment-url"] != c.HTMLURL {
					t.Errorf("comment-url %q, want %q", res.outputs["comment-url"], c.HTMLURL)
				}
			}
		}
		if !found {
			t.Errorf("no \"could not run\" comment: %+v", gh.Comments(7))
		}
	})

	t.Run("bad input", func(t *testing.T) {
		ws := o.clone(t, "feature")
		r := newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		before := gh.Comments(7)
		failure(t, steps(t, r, "CHARTER_FAIL_ON=notice", "CHARTER_COMMENT=true"), `charter: invalid --fail-on "notice": want error or warning`)
		// The earlier verdict's comment is updated, not left standing.
		after := gh.Comments(7)
		if len(after) != len(before) || len(after) < 2 || after[1].ID != before[1].ID ||
			!strings.HasPrefix(after[1].Body, "<!-- charter-schema-check dir=. -->\n### ❌ Charter schema check could not run\n\ncharter check could not run against git:"+o.base+`: charter: invalid --fail-on "notice"`) {
			t.Errorf("comments after a run that could not check: %+v (before %+v)", after, before)
		}
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		failure(t, steps(t, r, "CHARTER_EVIDENCE=lots"), `charter: invalid argument "lots" for "--evidence" flag`)
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		failure(t, steps(t, r, "CHARTER_COMMENT=yes"), `invalid comment input "yes": want true or false`)
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		if err := os.WriteFile(r.events, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
		failure(t, steps(t, r), "cannot read the event payload "+r.events)
		// A source tree that does not build (here: none), into an empty cache.
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		nosrc := t.TempDir()
		failure(t, steps(t, r, "CHARTER_SOURCE="+nosrc, "CHARTER_HOME="+t.TempDir()), "go build of charter failed in "+nosrc)
		// An unforeseen failure (the SARIF file's directory cannot be made)
		// goes through the ERR trap.
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		blocker := filepath.Join(t.TempDir(), "blocker")
		if err := os.WriteFile(blocker, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		failure(t, steps(t, r, "CHARTER_SARIF_FILE="+blocker+"/charter.sarif"), "the action failed unexpectedly (entrypoint.sh line ")
		r = newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		failure(t, r.run(t, "deploy"), `entrypoint.sh: unknown mode "deploy": want go, prepare, build or check`)
	})

	t.Run("comment refused", func(t *testing.T) {
		// A token that may not comment (a fork's): a warning, and the
		// gate's verdict stands.
		ws := o.clone(t, "refs/pull/7/merge")
		r := newRunner(t, home, ws, "pull_request", prPayload(o), "GITHUB_BASE_REF=main")
		res := steps(t, r, "CHARTER_COMMENT=true", "CHARTER_GITHUB_TOKEN=read-only")
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", res.code, res)
		}
		want := "::warning title=Charter schema check::could not comment on pull request #7: comment on pull request #7: list comments: GET /repos/acme/shop/issues/7/comments: 401 Unauthorized: Bad credentials"
		if !strings.Contains(res.stdout, want) || !strings.Contains(res.summary, "⚠️ Could not comment on pull request #7") {
			t.Errorf("want %q\n%s\nsummary:\n%s", want, res, res.summary)
		}
	})
}

// TestPrepare: how prepare names the build. An action checked out by the
// runner (no .git, in _actions/OWNER/NAME/REF) pinned by SHA takes its
// version from the tag that points at the commit on the server; one used
// from a git work tree (uses: ./action) its HEAD.
func TestPrepare(t *testing.T) {
	need(t, "bash", "git", "go")
	server := t.TempDir()
	repo := projecttest.GitRepo(t, "testdata/sample/base")
	sha := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "tag", "-a", "-m", "release", "v4.5.6")
	bare := filepath.Join(server, "charter-dev", "charter")
	git(t, t.TempDir(), "clone", "-q", "--bare", repo, bare)
	src := filepath.Join(t.TempDir(), "_actions", "charter-dev", "charter", sha)
	if err := os.MkdirAll(filepath.Join(src, "action"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, ref, repo string
		version, commit string
	}{
		{"pinned by SHA", sha, "charter-dev/charter", "v4.5.6", sha},
		{"ref from the path", "", "", "v4.5.6", sha},
		{"pinned by tag", "v4.5.6", "charter-dev/charter", "v4.5.6", sha},
		{"pinned by branch", "main", "charter-dev/charter", "main", sha},
		{"unknown server", "v9", "nobody/nothing", "v9", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, t.TempDir(), t.TempDir(), "push", map[string]any{}, "GITHUB_SERVER_URL=file://"+server)
			res := r.run(t, "prepare", "CHARTER_SOURCE="+filepath.Join(src, "action", ".."), "CHARTER_ACTION_REF="+tc.ref, "CHARTER_ACTION_REPOSITORY="+tc.repo)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res)
			}
			if res.outputs["version"] != tc.version || res.outputs["commit"] != tc.commit {
				t.Errorf("version %q commit %q, want %q %q\n%s", res.outputs["version"], res.outputs["commit"], tc.version, tc.commit, res)
			}
		})
	}
	t.Run("git work tree", func(t *testing.T) {
		r := newRunner(t, t.TempDir(), t.TempDir(), "push", map[string]any{}, "GITHUB_SERVER_URL=file://"+server)
		res := r.run(t, "prepare", "CHARTER_SOURCE="+repo, "CHARTER_ACTION_REF=", "CHARTER_ACTION_REPOSITORY=")
		if res.code != 0 || res.outputs["version"] != "v4.5.6" || res.outputs["commit"] != sha {
			t.Errorf("exit %d, outputs %v\n%s", res.code, res.outputs, res)
		}
	})
}

// TestEntrypointOutsideGitHub uses CHARTER_BIN and no GITHUB_*
// variables: another CI system, comparing with the previous commit.
func TestEntrypointOutsideGitHub(t *testing.T) {
	if testing.Short() {
		t.Skip("builds charter; skipped with -short")
	}
	need(t, "bash", "git", "go")
	bin := filepath.Join(t.TempDir(), "charter")
	build := exec.Command("go", "build", "-o", bin, "../cmd/charter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The base state: its orders.avsc still has what billing's pact reads.
	repo := projecttest.GitRepo(t, "testdata/sample/base", "testdata/sample/base")
	src, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	run := func(t *testing.T, dir string) (int, string) {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(src, "action", "entrypoint.sh"))
		cmd.Env = append(cleanEnv(), "CHARTER_BIN="+bin, "CHARTER_SOURCE="+src, "CHARTER_HOME="+t.TempDir(), "TMPDIR="+tmp)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := run(t, repo)
	m := regexp.MustCompile(`\nBaseline: git:HEAD~1\nSARIF report: (` + regexp.QuoteMeta(tmp) + `/charter-sarif\.\w+/charter\.sarif)\nCharter schema check passed: 0 errors, 0 warnings, 0 notices in 2 subjects \(2 unchanged\), against git:HEAD~1\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	// The SARIF report is the run's own (kept); the temporary directory
	// is gone.
	if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("SARIF report: %v", err)
	}
	noRunDirs(t, tmp)
	code, out2 := run(t, repo)
	if code != 0 || strings.Contains(out2, m[1]) {
		t.Errorf("a second run: exit %d, the same SARIF path %s:\n%s", code, m[1], out2)
	}
	noRunDirs(t, tmp)

	// A repository with no commit yet: every subject is new.
	fresh := t.TempDir()
	projecttest.CopyTree(t, "testdata/sample/base", fresh)
	projecttest.Git(t, fresh, "init", "-q")
	code, out = run(t, fresh)
	if code != 0 || !strings.Contains(out, "Baseline: none (the repository has no commit yet)\n") || !strings.Contains(out, "(2 added), against none (the repository has no commit yet)\n") {
		t.Errorf("no commit yet: exit %d\n%s", code, out)
	}
	noRunDirs(t, tmp)
}
