// Package migrate is the `charter migrate` command: one registry database
// copied into another, directly (no server), in the destination's one
// transaction, and verified.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/dump"
)

// NewCommand returns the migrate command.
func NewCommand(name string) *cobra.Command {
	var (
		from, to string
		opts     registry.ImportOptions
	)
	cmd := &cobra.Command{
		Use:   name + " --from DB --to DB",
		Short: "Copy a registry database into another (SQLite or PostgreSQL), losing nothing",
		Long: `Copy everything one registry database holds into another, without a server:
a SQLite file (as charter serve --db takes it) or a postgres:// URL on
either side. The source is read in one transaction, so a registry that is
serving (a live SQLite file, a PostgreSQL database replicas use) gives a
consistent copy of one moment; writes after it are not copied. The copy is
written in the destination's one transaction: every schema and ID, version,
soft delete, config and mode, governance record with its dates and actors,
contract, the lineage history and the audit log with its IDs, plus one audit
entry of its own (registry.import, naming --actor). Nothing is written
when it fails.

A destination that holds anything is refused, unless --merge adds the
source to it (as charter import --merge does: conflicts refuse it, listed).
--dry-run reports what would be copied and writes nothing.

Afterwards the destination is read back and compared with the source's
copy: the same dump but for the new audit entry (with --merge, the source's
copy must add nothing more). The source is read again, and a change since
the copy is reported on stderr: stop writes for a cut-over (charter mode
set READONLY), or run charter migrate --merge again to add what came
later.

Whoever can open both databases can copy them: the command has no
authentication of its own. Migrations of both databases are applied first,
as charter serve applies them.`,
		Example: `  # Move a SQLite registry onto PostgreSQL
  charter migrate --from charter.db --to 'postgres://charter:secret@db:5432/charter?sslmode=require'

  # Back to a file
  charter migrate --from 'postgres://charter@db:5432/charter' --to restored.db

  # What would a merge into a database in use add?
  charter migrate --from old.db --to new.db --merge --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			if from == "" || to == "" {
				return errors.New("migrate: give both --from and --to (a SQLite file or a postgres:// URL)")
			}
			if from == to {
				return fmt.Errorf("migrate: --from and --to are both %s", serve.DisplayDB(from))
			}
			if !serve.IsPostgres(from) {
				if _, err := os.Stat(from); err != nil {
					return fmt.Errorf("migrate: no database at --from %s: %w", from, err)
				}
			}
			ctx := registry.WithActor(cmd.Context(), global.Actor(cmd))
			m := &migration{from: from, to: to, opts: opts, now: time.Now().UTC(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			rep, warning, err := m.run(ctx)
			if err != nil {
				return err
			}
			// The report as the admin endpoint sends it.
			b, err := json.Marshal(rep)
			if err != nil {
				return fmt.Errorf("migrate: encode the report: %w", err)
			}
			var wire client.ImportReport
			if err := json.Unmarshal(b, &wire); err != nil {
				return fmt.Errorf("migrate: decode the report: %w", err)
			}
			if err := render.ImportReport(cmd.OutOrStdout(), out, wire); err != nil {
				return err
			}
			if warning != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "charter: warning: %s\n", warning)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source database: a SQLite file or a postgres:// URL")
	cmd.Flags().StringVar(&to, "to", "", "the destination database: a SQLite file (created if missing) or a postgres:// URL")
	cmd.Flags().BoolVar(&opts.Merge, "merge", false, "add the source to a destination that is not empty (conflicts still refuse it)")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "report what would be copied, kept and meet as conflicts; write nothing")
	global.AddActorFlag(cmd)
	return cmd
}

// migration is one run of the command.
type migration struct {
	from, to string
	opts     registry.ImportOptions
	// now is both Services' clock: the two exports compared carry the
	// same time, and the import's audit entry has it.
	now time.Time
	log *slog.Logger
}

// service is the Service over db; a source (readOnly) is opened read-only,
// so that a SQLite file a running server owns can be read beside it, while
// a destination is owned, refused when a server owns it.
func (m *migration) service(ctx context.Context, db, role string, readOnly bool) (*registry.Service, func(), error) {
	open := serve.OpenDatabase
	if readOnly {
		open = serve.OpenDatabaseReadOnly
	}
	st, err := open(ctx, db, m.log)
	if err != nil {
		return nil, nil, fmt.Errorf("migrate: %s: %w", role, err)
	}
	svc := registry.NewService(st, formats.Formats(), registry.WithLogger(m.log), registry.WithClock(func() time.Time { return m.now }))
	return svc, func() { _ = st.Close() }, nil
}

// run copies, verifies and returns the report and a warning for a source
// that changed meanwhile.
func (m *migration) run(ctx context.Context) (registry.ImportReport, string, error) {
	src, closeSrc, err := m.service(ctx, m.from, "--from", true)
	if err != nil {
		return registry.ImportReport{}, "", err
	}
	defer closeSrc()
	dst, closeDst, err := m.service(ctx, m.to, "--to", false)
	if err != nil {
		return registry.ImportReport{}, "", err
	}
	defer closeDst()
	d, err := src.Export(ctx)
	if err != nil {
		return registry.ImportReport{}, "", fmt.Errorf("migrate: read %s: %w", serve.DisplayDB(m.from), err)
	}
	rep, err := dst.Import(ctx, d, m.opts)
	if err != nil {
		return registry.ImportReport{}, "", fmt.Errorf("migrate: write %s: %w", serve.DisplayDB(m.to), err)
	}
	if m.opts.DryRun {
		return rep, "", nil
	}
	if err := m.verify(ctx, dst, d, rep); err != nil {
		return rep, "", err
	}
	again, err := src.Export(ctx)
	if err != nil {
		return rep, "", fmt.Errorf("migrate: read %s again: %w", serve.DisplayDB(m.from), err)
	}
	if diff := dump.Diff(d, again, 0); diff != "" {
		return rep, fmt.Sprintf("%s changed while it was copied (%s): the copy is the registry as it was when read; run charter migrate --merge again to add what came later", serve.DisplayDB(m.from), diff), nil
	}
	return rep, "", nil
}

// verify compares the destination with the source's copy d.
func (m *migration) verify(ctx context.Context, dst *registry.Service, d *dump.Dump, rep registry.ImportReport) error {
	if m.opts.Merge {
		plan, err := dst.Import(ctx, d, registry.ImportOptions{Merge: true, DryRun: true})
		if err != nil {
			return fmt.Errorf("migrate: verify: %w", err)
		}
		if plan.Added != (dump.Counts{}) || len(plan.Conflicts) > 0 {
			return fmt.Errorf("migrate: verify: %s does not hold the whole source: merging it again would add %+v (%s)", serve.DisplayDB(m.to), plan.Added, rule.Plural(len(plan.Conflicts), "conflict"))
		}
		return nil
	}
	got, err := dst.Export(ctx)
	if err != nil {
		return fmt.Errorf("migrate: verify: read %s: %w", serve.DisplayDB(m.to), err)
	}
	if diff := dump.Diff(d, got, rep.AuditID); diff != "" {
		return fmt.Errorf("migrate: verify: %s does not export what %s does: %s", serve.DisplayDB(m.to), serve.DisplayDB(m.from), diff)
	}
	return nil
}
