// Package projecttest builds git repositories for tests of
// action/project, `charter check` and the CI action.
package projecttest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GitRepo creates a git repository in a new temporary directory with one
// commit per tree: each commit's content is exactly the directory tree
// given (files absent from a later tree are deleted). It returns the
// repository's path; the last commit is HEAD on branch main. It skips the
// test when git is not installed, unless CI=true, where it fails.
func GitRepo(tb testing.TB, trees ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("git is not installed")
		}
		tb.Skip("git is not installed")
	}
	repo := tb.TempDir()
	Git(tb, repo, "init", "-q", "-b", "main")
	for i, tree := range trees {
		entries, err := os.ReadDir(repo)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
					tb.Fatal(err)
				}
			}
		}
		CopyTree(tb, tree, repo)
		Git(tb, repo, "add", "-A")
		Git(tb, repo, "commit", "-q", "--allow-empty", "-m", "commit "+string(rune('1'+i)))
	}
	return repo
}

// Git runs git in dir with a fixed identity and no user or system
// configuration, and returns its output.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Charter Test", "-c", "user.email=test@charter.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// CopyTree copies the regular files under src into dst, creating
// directories as needed.
func CopyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
