// Package initcmd is the `charter init` command: it writes a commented
// starter charter.yaml that maps the schema files found in a directory.
package initcmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat"
)

type options struct {
	force    bool
	registry string
	level    string
	strategy string
	stdout   bool
}

// NewCommand returns the init command.
func NewCommand(name string) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   name + " [DIR]",
		Short: "Write a starter charter.yaml that maps the schema files found in DIR",
		Long: `Scan DIR (default the current directory) for Avro (.avsc), Protobuf (.proto)
and JSON Schema (.json) files and write DIR/charter.yaml: one entry per directory
and format, with comments on every setting. The subjects the files map to are
printed, so the mapping can be checked before the first ` + "`charter check`" + `.
An existing charter.yaml is kept unless --force is given.`,
		Example: `  # Map the schemas of this repository, comparing with a local registry by default
  charter init --registry http://localhost:8081

  # Print the file instead of writing it
  charter init --stdout ./schemas`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return run(cmd, dir, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.force, "force", false, "overwrite an existing charter.yaml")
	f.StringVar(&o.registry, "registry", "", "registry URL to write into the file")
	f.StringVar(&o.level, "level", "BACKWARD", "default compatibility level")
	f.StringVar(&o.strategy, "strategy", string(project.TopicValue), "default subject naming strategy: topic-value, topic-key, record or topic-record")
	f.BoolVar(&o.stdout, "stdout", false, "print the file instead of writing it")
	global.Enum(cmd, "level", global.LevelValues()...)
	global.Enum(cmd, "strategy", string(project.TopicValue), string(project.TopicKey), string(project.Record), string(project.TopicRecord))
	return cmd
}

func run(cmd *cobra.Command, dir string, o options) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	level, err := compat.ParseLevel(o.level)
	if err != nil {
		return fmt.Errorf("--level: %w", err)
	}
	strategy := project.Strategy(o.strategy)
	switch strategy {
	case project.TopicValue, project.TopicKey, project.Record, project.TopicRecord:
	default:
		return fmt.Errorf("invalid --strategy %q: want topic-value, topic-key, record or topic-record", o.strategy)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("init: %s is not a directory", dir)
	}
	text, found, err := project.Starter(ctx, dir, project.InitOptions{Registry: o.registry, Level: level, Strategy: strategy})
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	// The file must load: a starter that fails its own schema is a bug.
	if _, err := project.ParseConfig(project.ConfigFile, text); err != nil {
		return fmt.Errorf("init: generated an invalid %s (a bug): %w", project.ConfigFile, err)
	}
	if o.stdout {
		_, err := out.Write(text)
		return err
	}
	path := filepath.Join(dir, project.ConfigFile)
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if o.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("init: %s exists; pass --force to overwrite it", path)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	return report(cmd, out, path, len(found))
}

// report prints what the written file maps.
func report(cmd *cobra.Command, out io.Writer, path string, n int) error {
	p, err := project.Load(path)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	schemas, err := p.Schemas(cmd.Context())
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	fmt.Fprintf(out, "wrote %s: %d schema files\n", path, n)
	w := 0
	for _, s := range schemas {
		w = max(w, len(s.File))
	}
	for _, s := range schemas {
		subject := s.Subject
		if s.Err != nil {
			subject = "(does not parse: " + s.Err.Error() + ")"
		}
		fmt.Fprintf(out, "  %-*s  %-8s  %s\n", w, s.File, s.Format, subject)
	}
	if n > 0 {
		fmt.Fprintln(out, "next: charter check --against git:main (or set registry: and run charter check)")
	}
	return nil
}
