package project

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// tree is a set of files by slash path relative to the project root: the
// working tree, another directory, or a git commit.
type tree interface {
	// list returns every regular file, sorted.
	list(ctx context.Context) ([]string, error)
	// read returns a file's content.
	read(ctx context.Context, file string) ([]byte, error)
}

// skipDir reports whether a directory is never searched for schemas:
// version control, dependencies and other hidden directories.
func skipDir(name string) bool {
	return name == "node_modules" || (strings.HasPrefix(name, ".") && name != "." && name != "..")
}

// dirTree is a directory on disk.
type dirTree struct{ root string }

func (d dirTree) list(ctx context.Context) ([]string, error) {
	var out []string
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if p != d.root && skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list files under %s: %w", d.root, err)
	}
	sort.Strings(out)
	return out, nil
}

func (d dirTree) read(_ context.Context, file string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(file)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return b, nil
}
