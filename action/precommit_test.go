package action_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/charter-dev/charter/action/project/projecttest"
)

// hook is an entry of .pre-commit-hooks.yaml (pre-commit's manifest).
type hook struct {
	ID            string   `yaml:"id"`
	Name          string   `yaml:"name"`
	Description   string   `yaml:"description"`
	Entry         string   `yaml:"entry"`
	Language      string   `yaml:"language"`
	Files         string   `yaml:"files"`
	Types         []string `yaml:"types"`
	PassFilenames *bool    `yaml:"pass_filenames"`
}

func loadHooks(t *testing.T) map[string]hook {
	t.Helper()
	b, err := os.ReadFile("../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hook
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	out := map[string]hook{}
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
			t.Errorf("hook %+v lacks id, name, entry or language", h)
		}
		out[h.ID] = h
	}
	return out
}

// shlexSplit splits an entry as pre-commit does (Python's shlex.split):
// words, single and double quotes, backslash escapes outside quotes.
func shlexSplit(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0 {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unterminated quote in entry %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestPreCommitHooksManifest: the manifest parses, names the two hooks
// with a language pre-commit installs Charter with (golang: go install
// ./... builds cmd/charter as "charter"), and its file patterns pick the
// schema files.
func TestPreCommitHooksManifest(t *testing.T) {
	hooks := loadHooks(t)
	if len(hooks) != 2 {
		t.Errorf("%d hooks, want charter-check and charter-diff", len(hooks))
	}
	for _, id := range []string{"charter-check", "charter-diff"} {
		h, ok := hooks[id]
		if !ok {
			t.Fatalf("no hook %s", id)
		}
		if h.Language != "golang" {
			t.Errorf("%s: language %q, want golang", id, h.Language)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Fatalf("%s: files: %v", id, err)
		}
		for _, f := range []string{"schemas/orders.avsc", "proto/a/v1/a.proto", "jsonschema/payment.json"} {
			if !re.MatchString(f) {
				t.Errorf("%s: files %q does not match %s", id, h.Files, f)
			}
		}
		if re.MatchString("README.md") || re.MatchString("main.go") {
			t.Errorf("%s: files %q matches non-schema files", id, h.Files)
		}
	}
	if !regexp.MustCompile(hooks["charter-check"].Files).MatchString("services/x/charter.yaml") {
		t.Error("charter-check does not run when charter.yaml changes")
	}
	if p := hooks["charter-check"].PassFilenames; p == nil || *p {
		t.Error("charter-check judges the whole project: pass_filenames must be false")
	}
	// The entry's program is the binary cmd/charter builds.
	if _, err := os.Stat("../cmd/charter/main.go"); err != nil {
		t.Fatalf("cmd/charter, which go install ./... builds as charter: %v", err)
	}
	// charter-check judges an export of the index (git checkout-index),
	// against HEAD, or against nothing before the first commit.
	if w := shlexSplit(t, hooks["charter-check"].Entry); len(w) != 4 || w[0] != "bash" || w[1] != "-c" || w[3] != "--" ||
		!strings.Contains(w[2], "checkout-index --all") || !strings.Contains(w[2], `charter check --against git:HEAD "$@"`) {
		t.Errorf("charter-check entry %q", w)
	}
	if w := shlexSplit(t, hooks["charter-diff"].Entry); len(w) != 4 || w[0] != "bash" || w[1] != "-c" || w[3] != "--" || !strings.Contains(w[2], `charter diff "$tmp/${f##*/}" "$f"`) {
		t.Errorf("charter-diff entry %q", w)
	}
}

// TestPreCommitHooksRun runs both hooks' entries as pre-commit would
// (the entry split, the staged file names appended for charter-diff) in
// a repository with a staged change, with the charter binary on PATH, and
// checks that each entry command exists and judges: an incompatible
// staged change fails, a compatible one passes.
func TestPreCommitHooksRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds charter; skipped with -short")
	}
	need(t, "bash", "git", "go")
	hooks := loadHooks(t)
	binDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "charter"), "../cmd/charter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := projecttest.GitRepo(t, "testdata/sample/base")
	t.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	tmp := t.TempDir()
	env := append(cleanEnv(), "NO_COLOR=1", "TMPDIR="+tmp)
	runHook := func(t *testing.T, id string, files ...string) (int, string) {
		t.Helper()
		h := hooks[id]
		args := shlexSplit(t, h.Entry)
		if h.PassFilenames == nil || *h.PassFilenames {
			re := regexp.MustCompile(h.Files)
			for _, f := range files {
				if re.MatchString(f) {
					args = append(args, f)
				}
			}
		}
		if _, err := exec.LookPath(args[0]); err != nil {
			t.Fatalf("%s: entry command %s: %v", id, args[0], err)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s left %d temporary entries behind", id, len(left))
		}
		return code, string(out)
	}
	write := func(t *testing.T, file, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stage := func(t *testing.T, file, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		projecttest.Git(t, repo, "add", file)
	}
	orders, err := os.ReadFile(filepath.Join(repo, "schemas", "orders.avsc"))
	if err != nil {
		t.Fatal(err)
	}

	// Nothing staged: both pass.
	if code, out := runHook(t, "charter-check"); code != 0 || !strings.Contains(out, "passed") {
		t.Errorf("charter-check on a clean tree: exit %d\n%s", code, out)
	}
	// A compatible change: an optional field with a default.
	compatible := strings.Replace(string(orders), `"fields": [`, `"fields": [{"name": "note", "type": ["null", "string"], "default": null},`, 1)
	if compatible == string(orders) {
		t.Fatalf("the sample's orders.avsc changed shape:\n%s", orders)
	}
	stage(t, "schemas/orders.avsc", compatible)
	if code, out := runHook(t, "charter-check"); code != 0 {
		t.Errorf("charter-check on a compatible change: exit %d\n%s", code, out)
	}
	if code, out := runHook(t, "charter-diff", "schemas/orders.avsc", "README.md"); code != 0 || !strings.Contains(out, "charter diff HEAD:schemas/orders.avsc schemas/orders.avsc") {
		t.Errorf("charter-diff on a compatible change: exit %d\n%s", code, out)
	}
	// charter-check judges the index alone: an untracked broken schema
	// (pre-commit stashes only unstaged changes to tracked files) and an
	// unstaged broken edit play no part.
	write(t, "schemas/wip.avsc", `{"type": "record", "name": "Wip", "fields": [`)
	write(t, "schemas/orders.avsc", `{"type": "record"`)
	if code, out := runHook(t, "charter-check"); code != 0 || strings.Contains(out, "wip.avsc") {
		t.Errorf("charter-check with an untracked broken file and an unstaged broken edit: exit %d\n%s", code, out)
	}
	// The index git names (GIT_INDEX_FILE, as git commit -a and git
	// commit FILE set it) is the one judged.
	other := filepath.Join(t.TempDir(), "index")
	idx := exec.Command("bash", "-c", `cp "$(git rev-parse --git-dir)/index" "$1" && GIT_INDEX_FILE="$1" git add schemas/wip.avsc`, "--", other)
	idx.Dir, idx.Env = repo, env
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	saved := env
	env = append(append([]string(nil), env...), "GIT_INDEX_FILE="+other)
	if code, out := runHook(t, "charter-check"); code == 0 || !strings.Contains(out, "wip.avsc") {
		t.Errorf("charter-check with a broken file in GIT_INDEX_FILE's index: exit %d\n%s", code, out)
	}
	env = saved
	if err := os.Remove(filepath.Join(repo, "schemas", "wip.avsc")); err != nil {
		t.Fatal(err)
	}
	// Messages name repository-relative paths, never the temporary
	// export they were judged in.
	cfg, err := os.ReadFile(filepath.Join(repo, "charter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stage(t, "charter.yaml", strings.Replace(string(cfg), "schemas:\n", "schemas:\n  - files: \"protos/*.proto\"\n", 1))
	if code, out := runHook(t, "charter-check"); code != 0 || !strings.Contains(out, `files pattern "protos/*.proto" matches no file under .`) || strings.Contains(out, tmp) {
		t.Errorf("charter-check with an unmatched pattern: exit %d\n%s", code, out)
	}
	stage(t, "charter.yaml", string(cfg))
	// An incompatible one: a new field without a default.
	incompatible := strings.Replace(string(orders), `"fields": [`, `"fields": [{"name": "region", "type": "string"},`, 1)
	stage(t, "schemas/orders.avsc", incompatible)
	if code, out := runHook(t, "charter-check"); code != 1 || !strings.Contains(out, "AVRO_READER_FIELD_MISSING_DEFAULT") {
		t.Errorf("charter-check on an incompatible change: exit %d\n%s", code, out)
	}
	if code, out := runHook(t, "charter-diff", "schemas/orders.avsc"); code != 1 || !strings.Contains(out, "AVRO_READER_FIELD_MISSING_DEFAULT") {
		t.Errorf("charter-diff on an incompatible change: exit %d\n%s", code, out)
	}
	// A new file has no HEAD version: charter-diff skips it.
	stage(t, "schemas/new.avsc", `{"type":"record","name":"New","fields":[]}`)
	if code, out := runHook(t, "charter-diff", "schemas/new.avsc"); code != 0 || out != "" {
		t.Errorf("charter-diff on a new file: exit %d\n%s", code, out)
	}

	// A repository's first commit: no HEAD, every staged subject is new.
	repo = t.TempDir()
	projecttest.CopyTree(t, "testdata/sample/base", repo)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		projecttest.Git(t, repo, args...)
	}
	write(t, "schemas/wip.avsc", `{"type": "record", "name": "Wip", "fields": [`) // untracked
	if code, out := runHook(t, "charter-check"); code != 0 || !strings.Contains(out, "no commit yet, so every subject is new") || !strings.Contains(out, "(2 added), against none (no commit yet)\n") {
		t.Errorf("charter-check before the first commit: exit %d\n%s", code, out)
	}
}
