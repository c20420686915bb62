package project

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// gitTree is the project directory as a git commit has it. It runs git as
// a subprocess: `git ls-tree` once to list the files, then one
// `git cat-file --batch` for every read.
type gitTree struct {
	dir    string // the project root (inside the work tree)
	rev    string // as the user wrote it
	commit string // resolved commit ID

	blobs map[string]string // file (relative to the project root) → blob ID

	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// runGit runs git in dir and returns its standard output. The error is one
// line: git's first line of complaint.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("git is not installed or not on PATH")
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// openGitTree resolves rev in the repository holding dir and lists the
// files of dir at that commit.
func openGitTree(ctx context.Context, dir, rev string) (*gitTree, error) {
	if rev == "" {
		return nil, fmt.Errorf("empty git revision (write --against git:main, git:HEAD~1, …)")
	}
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("invalid git revision %q", rev)
	}
	prefix, err := runGit(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git work tree (%w)", dir, err)
	}
	commit, err := runGit(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("git revision %q not found in the repository of %s", rev, dir)
	}
	t := &gitTree{dir: dir, rev: rev, commit: strings.TrimSpace(string(commit)), blobs: map[string]string{}}
	list, err := runGit(ctx, dir, "ls-tree", "-r", "-z", "--full-tree", t.commit)
	if err != nil {
		return nil, err
	}
	pre := strings.TrimSpace(string(prefix))
	for _, entry := range bytes.Split(list, []byte{0}) {
		// "<mode> SP <type> SP <object> TAB <path>"
		meta, file, ok := strings.Cut(string(entry), "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" || f[0] == "120000" || !strings.HasPrefix(file, pre) {
			continue
		}
		rel := strings.TrimPrefix(file, pre)
		if hiddenPath(rel) {
			continue
		}
		t.blobs[rel] = f[2]
	}
	return t, nil
}

// hiddenPath reports whether a file lies in a directory skipDir skips.
func hiddenPath(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if skipDir(p) {
			return true
		}
	}
	return false
}

func (t *gitTree) list(context.Context) ([]string, error) {
	out := make([]string, 0, len(t.blobs))
	for f := range t.blobs {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, nil
}

func (t *gitTree) read(ctx context.Context, file string) ([]byte, error) {
	id, ok := t.blobs[file]
	if !ok {
		return nil, fmt.Errorf("read %s at %s: no such file", file, t.rev)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cmd == nil {
		cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
		cmd.Dir = t.dir
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		t.cmd, t.in, t.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	}
	if _, err := io.WriteString(t.in, id+"\n"); err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", file, t.rev, err)
	}
	// "<object> SP <type> SP <size> LF <contents> LF"
	header, err := t.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", file, t.rev, err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[1] != "blob" {
		return nil, fmt.Errorf("read %s at %s: git cat-file answered %q", file, t.rev, strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: bad size in %q", file, t.rev, strings.TrimSpace(header))
	}
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(t.out, buf); err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", file, t.rev, err)
	}
	return buf[:size], nil
}

// close stops the cat-file process.
func (t *gitTree) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cmd == nil {
		return nil
	}
	t.in.Close()
	err := t.cmd.Wait()
	t.cmd = nil
	return err
}
