package exporter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// export copies what exporter e has not copied yet, at most MaxPerCycle
// versions, then the subjects' settings (config and mode) that changed,
// and returns how many versions it copied. Progress is stored after each
// subject's versions and after its settings, and after a failure up to
// the last version copied.
func (r *Runner) export(ctx context.Context, e Stored, all []Stored) (int, error) {
	dst, err := r.destination(e)
	if err != nil {
		return 0, err
	}
	if r.isSelf(ctx, e.Exporter, dst) && e.ContextType == ContextNone {
		return 0, errSelfNone
	}
	excluded := r.excludedContexts(all)
	var progress map[string]Progress
	err = r.store.View(ctx, func(tx Tx) error {
		var err error
		progress, err = tx.ExporterProgress(ctx, e.Name)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("read progress: %w", err)
	}
	if progress == nil {
		progress = map[string]Progress{}
	}
	listed, err := r.src.Subjects(ctx)
	if err != nil {
		return 0, fmt.Errorf("list source subjects: %w", err)
	}
	var subjects []Subject
	for _, s := range listed {
		if e.Matches(s.Name) && !e.IsOwnCopy(s.Name, r.opts.ClusterID) && !inContexts(s.Name, excluded) {
			subjects = append(subjects, s)
		}
	}
	c := &copier{r: r, e: e.Exporter, dst: dst, progress: progress, done: map[versionKey]bool{}, imported: map[string]bool{}, setThisCycle: map[string]bool{}}
	defer func() {
		if c.more {
			r.mu.Lock()
			r.more = true
			r.mu.Unlock()
		}
	}()
	for s, p := range progress {
		if p.Imported {
			c.imported[e.DestinationSubject(s, r.opts.ClusterID)] = true
		}
	}
	// save records p as subject's progress, n versions more.
	save := func(subject string, p Progress, n int) error {
		if err := r.saveProgress(ctx, &e, subject, p, n); err != nil {
			return err
		}
		progress[subject] = p
		return nil
	}
	// Versions first, then settings: a referrer's copy may put a
	// referenced subject back in IMPORT mode, and its mode is restored
	// after every version of the cycle is in.
	copied := 0
	for _, subject := range subjects {
		if copied >= r.opts.MaxPerCycle {
			c.more = true
			break
		}
		p := progress[subject.Name]
		n, err := c.versions(ctx, subject, &p, r.opts.MaxPerCycle-copied)
		copied += n
		if n > 0 {
			if serr := save(subject.Name, p, n); serr != nil {
				return copied, errors.Join(err, serr)
			}
		}
		if err != nil {
			return copied, err
		}
	}
	for _, subject := range subjects {
		p := progress[subject.Name]
		if p.Version == 0 {
			continue // no version copied yet (MaxPerCycle): settings later
		}
		err := c.settings(ctx, subject, &p)
		if p != progress[subject.Name] {
			if serr := save(subject.Name, p, 0); serr != nil {
				return copied, errors.Join(err, serr)
			}
		}
		if err != nil {
			return copied, err
		}
	}
	return copied, nil
}

// errStop ends a cycle without an error state: the exporter was paused,
// reset, redirected or deleted under it, or another process took over
// its lease. The next cycle starts from what is stored.
var errStop = errors.New("the exporter changed during the cycle")

// saveProgress stores the progress p of exporter e (as the cycle read
// it) on subject, adds n to its offset and, with a Lease, renews it. It
// records nothing and answers errStop when the stored exporter is no
// longer the cycle's: deleted, its offset moved by a reset, its
// destination changed, or its lease another process's; it records p and
// answers errStop when the exporter was paused meanwhile.
func (r *Runner) saveProgress(ctx context.Context, e *Stored, subject string, p Progress, n int) error {
	err := r.store.Update(ctx, func(tx Tx, _ Audit) error {
		cur, ok, err := tx.Exporter(ctx, e.Name)
		switch {
		case err != nil:
			return err
		case !ok, cur.Offset != e.Offset, redirected(e.Exporter, cur.Exporter):
			return errStop
		case r.opts.Lease > 0 && cur.LeaseOwner != r.owner:
			r.mu.Lock()
			delete(r.leases, e.Name)
			r.mu.Unlock()
			return errStop
		}
		now := r.opts.Now()
		if r.opts.Lease > 0 {
			cur.LeaseUntil = now.Add(r.opts.Lease).UnixMilli()
		}
		if err := tx.PutExporterProgress(ctx, e.Name, subject, p); err != nil {
			return err
		}
		if n > 0 {
			cur.Offset += int64(n)
			cur.Ts = now.UnixMilli()
		}
		if n > 0 || r.opts.Lease > 0 {
			if err := tx.PutExporter(ctx, cur); err != nil {
				return err
			}
		}
		e.Offset, e.State = cur.Offset, cur.State
		return nil
	})
	if err == nil && e.State == StatePaused {
		return errStop
	}
	return err
}

// redirected reports whether b sends an exporter's copies elsewhere
// than a: another registry, context or renaming.
func redirected(a, b Exporter) bool {
	return a.ContextType != b.ContextType || a.Context != b.Context ||
		a.SubjectRenameFormat != b.SubjectRenameFormat || a.Config[ConfigURL] != b.Config[ConfigURL]
}

// versionKey names one source version.
type versionKey struct {
	subject string
	version int
}

// copier copies the versions of one exporter's cycle.
type copier struct {
	r   *Runner
	e   Exporter
	dst *destination
	// progress is the exporter's progress by source subject (the cycle
	// updates it as it stores it); done holds the versions copied this
	// cycle (references included); imported the destination subjects
	// known to be in IMPORT mode.
	progress map[string]Progress
	done     map[versionKey]bool
	imported map[string]bool
	// setThisCycle holds the destination subjects this cycle put in
	// IMPORT mode.
	setThisCycle map[string]bool
	// more is set when the cycle stopped at MaxPerCycle.
	more bool
}

// maxReferenceDepth bounds how deep references are followed.
const maxReferenceDepth = 32

// versions copies subject's versions after p.Version, at most limit,
// updating p; it returns how many it copied. When the source's version
// p.Version is gone or is no longer the schema copied (the subject was
// deleted permanently and registered again), every version is copied
// again: those the destination holds answer their IDs, and a version
// the destination holds with another schema is refused there, which
// fails the cycle with a trace that says so.
func (c *copier) versions(ctx context.Context, subject Subject, p *Progress, limit int) (int, error) {
	dest := c.e.DestinationSubject(subject.Name, c.r.opts.ClusterID)
	var rewritten error
	if p.Version > 0 {
		if err := c.sameHistory(ctx, subject, *p); err != nil {
			rewritten = err
			cfg, mode, _ := p.settings()
			p.Version = 0
			p.setSettings(cfg, mode, 0)
		}
	}
	// A subject copied from scratch (its first copy, after a reset or a
	// new history) may meet versions the destination holds already: one
	// that holds another schema is not replaced (IMPORT would replace it
	// and forget its ID there), the cycle fails saying so.
	if p.Version == 0 {
		// From scratch, the destination subject's mode is not known:
		// it may have been deleted permanently since (the remedy the
		// trace below gives), which removes its IMPORT mode. The first
		// copy sets it again, unless this cycle did (a referrer's copy).
		if !c.setThisCycle[dest] {
			delete(c.imported, dest)
		}
	}
	var held map[int]int64
	if p.Version == 0 && len(subject.Versions) > 0 && len(subject.IDs) == len(subject.Versions) {
		var err error
		if held, err = c.dst.versionIDs(ctx, dest, subject.Versions); err != nil {
			return 0, fmt.Errorf("read the versions of %q at the destination: %w", dest, err)
		}
	}
	n := 0
	for i, v := range subject.Versions {
		if v <= p.Version {
			continue
		}
		if id, ok := held[v]; ok && id != subject.IDs[i] {
			err := fmt.Errorf("the destination's %q holds ID %d at version %d, but version %d of %q is ID %d at the source: not replaced (delete the destination's subject permanently, then resume the exporter)", dest, id, v, v, subject.Name, subject.IDs[i])
			if rewritten != nil {
				err = fmt.Errorf("%w; %w", rewritten, err)
			}
			p.Imported = c.imported[dest]
			return n, err
		}
		if n >= limit {
			c.more = true
			break
		}
		if err := c.version(ctx, subject.Name, v, 0); err != nil {
			p.Imported = c.imported[dest]
			if rewritten != nil {
				err = fmt.Errorf("%w; %w", rewritten, err)
			}
			return n, err
		}
		var id int64
		if len(subject.IDs) == len(subject.Versions) {
			id = subject.IDs[i]
		}
		cfg, mode, _ := p.settings()
		p.Version = v
		p.setSettings(cfg, mode, id)
		n++
	}
	p.Imported = c.imported[dest]
	return n, nil
}

// sameHistory checks that the source's version p.Version of subject is
// still the schema p says was copied; an error says how it differs.
// Progress without an ID (stored before IDs were) is taken as is.
func (c *copier) sameHistory(ctx context.Context, subject Subject, p Progress) error {
	_, _, copied := p.settings()
	if copied == 0 {
		return nil
	}
	id, found := int64(0), false
	if i := slices.Index(subject.Versions, p.Version); i >= 0 && len(subject.IDs) == len(subject.Versions) {
		id, found = subject.IDs[i], true
	} else if sv, err := c.r.src.Version(ctx, subject.Name, p.Version); err == nil {
		id, found = sv.ID, true // soft-deleted
	}
	switch {
	case !found:
		return fmt.Errorf("version %d of %q (ID %d) was copied but is gone from the source (the subject was deleted permanently): its versions are copied again", p.Version, subject.Name, copied)
	case id != copied:
		return fmt.Errorf("version %d of %q is ID %d at the source but ID %d was copied (the subject was deleted permanently and registered again): its versions are copied again", p.Version, subject.Name, id, copied)
	}
	return nil
}

// settings returns the parts of p.Settings: the config digest, the
// destination mode and the source schema ID of p.Version (0: unknown).
func (p Progress) settings() (cfg, mode string, id int64) {
	parts := strings.SplitN(p.Settings, "/", 3)
	cfg = parts[0]
	if len(parts) > 1 {
		mode = parts[1]
	}
	if len(parts) > 2 {
		id, _ = strconv.ParseInt(parts[2], 10, 64)
	}
	return cfg, mode, id
}

// setSettings sets p.Settings from its parts ("" when all are empty).
func (p *Progress) setSettings(cfg, mode string, id int64) {
	switch {
	case id != 0:
		p.Settings = cfg + "/" + mode + "/" + strconv.FormatInt(id, 10)
	case cfg == "" && mode == "":
		p.Settings = ""
	default:
		p.Settings = cfg + "/" + mode
	}
}

// destinationMode is the mode a destination subject keeps between copies
// for a source subject in mode m ("" none set): READONLY and
// READONLY_OVERRIDE are copied, any other mode is IMPORT (the copies'
// mode, which keeps the destination's own clients from writing there, as
// Confluent's exporter does).
func destinationMode(m string) string {
	if m == "READONLY" || m == "READONLY_OVERRIDE" {
		return m
	}
	return "IMPORT"
}

// settings copies subject's config and mode when they changed since
// p.Settings says, updating p.
func (c *copier) settings(ctx context.Context, subject Subject, p *Progress) error {
	dest := c.e.DestinationSubject(subject.Name, c.r.opts.ClusterID)
	cfg := ""
	if subject.Config != nil {
		sum := sha256.Sum256(subject.Config)
		cfg = hex.EncodeToString(sum[:])
	}
	oldCfg, oldMode, id := p.settings()
	if cfg != oldCfg {
		if err := c.dst.setConfig(ctx, dest, subject.Config); err != nil {
			return fmt.Errorf("copy config of %q to %q: %w", subject.Name, dest, err)
		}
		p.setSettings(cfg, oldMode, id)
	}
	want, have := destinationMode(subject.Mode), oldMode
	if c.imported[dest] {
		have = "IMPORT"
	}
	if want != have {
		if err := c.dst.setMode(ctx, dest, want); err != nil {
			return fmt.Errorf("copy mode of %q to %q: %w", subject.Name, dest, err)
		}
		c.imported[dest] = want == "IMPORT"
	}
	p.setSettings(cfg, want, id)
	p.Imported = c.imported[dest]
	return nil
}

// version copies version v of source subject, its references first
// (those the progress says were copied are not sent again).
func (c *copier) version(ctx context.Context, subject string, v int, depth int) error {
	key := versionKey{subject, v}
	if c.done[key] {
		return nil
	}
	if depth > maxReferenceDepth {
		return fmt.Errorf("references of %q version %d nest deeper than %d", subject, v, maxReferenceDepth)
	}
	sv, err := c.r.src.Version(ctx, subject, v)
	if err != nil {
		return fmt.Errorf("read %q version %d: %w", subject, v, err)
	}
	refs := make([]Reference, 0, len(sv.References))
	for _, ref := range sv.References {
		src := resolveReference(subject, ref.Subject)
		if ref.Version > c.progress[src].Version {
			if err := c.version(ctx, src, ref.Version, depth+1); err != nil {
				return err
			}
		}
		refs = append(refs, Reference{Name: ref.Name, Subject: c.e.DestinationSubject(src, c.r.opts.ClusterID), Version: ref.Version})
	}
	dest := c.e.DestinationSubject(subject, c.r.opts.ClusterID)
	if !c.imported[dest] {
		if err := c.dst.setMode(ctx, dest, "IMPORT"); err != nil {
			return fmt.Errorf("put %q in IMPORT mode: %w", dest, err)
		}
		c.imported[dest], c.setThisCycle[dest] = true, true
	}
	err = c.dst.register(ctx, dest, sv, refs)
	if notImportMode(err) {
		// The destination subject left IMPORT mode since it was set
		// (deleted permanently there, or its mode changed): set it
		// again and copy once more.
		if err := c.dst.setMode(ctx, dest, "IMPORT"); err != nil {
			return fmt.Errorf("put %q in IMPORT mode: %w", dest, err)
		}
		c.imported[dest], c.setThisCycle[dest] = true, true
		err = c.dst.register(ctx, dest, sv, refs)
	}
	if err != nil {
		return fmt.Errorf("copy %q version %d (ID %d) to %q: %w", subject, v, sv.ID, dest, err)
	}
	c.done[key] = true
	return nil
}

// notImportMode reports whether err is a destination's refusal of a
// registration with an ID because the subject is not in IMPORT mode
// (42205 "Subject ... is not in import mode", Charter's and Confluent's).
func notImportMode(err error) bool {
	var de *destError
	return errors.As(err, &de) && de.Code == 42205 && strings.Contains(strings.ToLower(de.Message), "not in import mode")
}
