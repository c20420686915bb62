package governance

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// The deprecation table (Charter issue 10 §3). For a field deprecated
// through the governance API, a new version either keeps it or removes it,
// and one of the two is always allowed:
//
//	moment         readers of the field        keep                             remove
//	before expiry  anyone                      DEPRECATION_ACTIVE (warning)     DEPRECATION_REMOVAL_GUARDED (error)
//	before expiry  nobody                      DEPRECATION_ACTIVE (warning)     DEPRECATION_REMOVED_EARLY (warning)
//	after expiry   all hold running extensions DEPRECATION_EXTENDED (notice)    DEPRECATION_REMOVAL_GUARDED (error)
//	after expiry   some without an extension   DEPRECATION_EXPIRED_READ (warn.) DEPRECATION_REMOVAL_GUARDED (error)
//	after expiry   nobody                      DEPRECATION_EXPIRED (error)      allowed, no finding
//
// Readers are the consumers that read the field (or a field under it)
// now: through a published contract or a declared lineage consumer
// (SubjectState.Readers). A deprecation the schema itself declares
// (SourceSchema) only warns: DEPRECATION_ACTIVE, then
// DEPRECATION_INLINE_EXPIRED, and its removal is never refused by these
// rules (an unmodified Confluent client knows nothing of them).

// Rule IDs of the deprecation table beside those of rules.go.
const (
	// RuleDeprecationExpiredRead: a kept expired field that consumers
	// without a running extension still read.
	RuleDeprecationExpiredRead = "DEPRECATION_EXPIRED_READ"
	// RuleDeprecationRemovedEarly: a field removed before its expiry
	// that nobody reads.
	RuleDeprecationRemovedEarly = "DEPRECATION_REMOVED_EARLY"
	// RuleDeprecationExpiredUnremovable: a kept expired field nobody
	// reads, which the level does not let the subject remove yet.
	RuleDeprecationExpiredUnremovable = "DEPRECATION_EXPIRED_UNREMOVABLE"
	// RuleDeprecationRemovalGuarded: a deprecated field removed while
	// consumers still read it.
	RuleDeprecationRemovalGuarded = "DEPRECATION_REMOVAL_GUARDED"
)

var deprecationTableRules = []rule.Rule{
	{ID: RuleDeprecationExpiredUnremovable, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: "Charter issue 10 §3 (one path is always open); Avro specification, schema resolution (a reader field without a default)",
		Purpose: "The new version keeps an expired field that nobody reads because the level reads forward and an earlier version requires it without a default: removing it would be incompatible, so keeping it is allowed, with the way out."},
	{ID: RuleDeprecationExpiredRead, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: "Charter issue 10 §3",
		Purpose: "The new version keeps an expired field that consumers without a running extension still read: allowed, so that they do not break, and each of them is named."},
	{ID: RuleDeprecationRemovedEarly, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: "Charter issue 10 §3",
		Purpose: "The new version removes a deprecated field before its expiry; nobody reads it, so the removal is allowed."},
	{ID: RuleDeprecationRemovalGuarded, Category: rule.CategoryDeprecation, Severity: rule.Error, Source: "Charter issue 5 §7; issue 10 §3",
		Purpose: "The new version removes a field deprecated through the governance API while consumers (by published contract or declared lineage) still read it, " +
			"before or after its expiry, extension holders included; keeping it stays allowed."},
}

// fieldReaders returns the consumers that read d's field now (the field
// or a field under it: ReadersOf over readers, which come from published
// contracts and declared lineage consumers), sorted, split into those
// holding a running extension of d and the others. An extension alone
// does not make a reader: it changes a reader's status.
func fieldReaders(d Deprecation, readers map[string][]string, now time.Time) (extended, without []string) {
	ext := map[string]bool{}
	for _, x := range d.ActiveExtensions(now) {
		ext[x.Consumer] = true
	}
	for _, c := range ReadersOf(d.Path, readers) {
		if ext[c] {
			extended = append(extended, c)
		} else {
			without = append(without, c)
		}
	}
	return extended, without
}

// describeReaders is "billing, tracking (extended until 2027-03-01, approved by alice)".
func describeReaders(d Deprecation, readers []string, now time.Time) string {
	running := map[string]Extension{}
	for _, x := range d.ActiveExtensions(now) {
		if _, ok := running[x.Consumer]; !ok {
			running[x.Consumer] = x
		}
	}
	parts := make([]string, len(readers))
	for i, c := range readers {
		parts[i] = c
		if x, ok := running[c]; ok {
			parts[i] += " (extended until " + date(x.Until)
			if x.Approver != "" {
				parts[i] += ", approved by " + x.Approver
			}
			parts[i] += ")"
		}
	}
	return strings.Join(parts, ", ")
}

// keptField reports what keeping the deprecated field d (path) means at
// now: the "keep" column of the table.
func (e *evaluation) keptField(d Deprecation, path, why, use string) {
	now := e.in.Now
	extended, without := fieldReaders(d, e.in.State.Readers, now)
	all := append(append([]string(nil), without...), extended...)
	sort.Strings(all)
	readBy := ""
	if len(all) > 0 {
		readBy = "; read by " + describeReaders(d, all, now)
	}
	if d.StateAt(now) == StateDeprecated {
		left := d.DaysLeft(now)
		e.add(rule.Finding{RuleID: RuleDeprecationActive, Path: path,
			Message: fmt.Sprintf("%s is deprecated%s since %s with a TTL of %s: %s left, it expires on %s%s%s",
				d.Item, why, date(d.DeprecatedAt), Days(d.TTLDays), Days(left), date(d.ExpiresAt), readBy, use),
			Hint: keepHint(d, all, e.subject) + e.defaultFirst(path)})
		return
	}
	if d.Source == SourceSchema {
		e.add(rule.Finding{RuleID: RuleDeprecationInlineExpired, Path: path,
			Message: fmt.Sprintf("%s of subject %s, deprecated in the schema, expired on %s (TTL %s)%s%s",
				d.Item, e.subject, date(d.ExpiresAt), Days(d.TTLDays), readBy, use),
			Hint: fmt.Sprintf("remove %s from the schema once its readers have migrated", d.Item)})
		return
	}
	switch {
	case len(all) > 0 && len(without) == 0:
		e.add(rule.Finding{RuleID: RuleDeprecationExtended, Path: path, Consumer: extended[0],
			Message: fmt.Sprintf("%s expired on %s%s; every consumer still reading it holds a running extension: %s%s",
				d.Item, date(d.ExpiresAt), why, describeReaders(d, extended, now), use),
			Hint: fmt.Sprintf("keep %s until the last extension ends; remove it once nobody reads it (now %s)", d.Item, strings.Join(extended, ", "))})
	case len(without) > 0:
		e.add(rule.Finding{RuleID: RuleDeprecationExpiredRead, Path: path, Consumer: without[0],
			Message: fmt.Sprintf("%s expired on %s%s but consumers without a running extension still read it: %s%s",
				d.Item, date(d.ExpiresAt), why, describeReaders(d, without, now), use),
			Hint: fmt.Sprintf("keep %s for now; %s must migrate or get an extension from the subject's owner (charter extend %s %s --consumer TEAM --days N --reason … --approver …); removing it is refused while they read it",
				d.Item, strings.Join(without, ", "), e.subject, d.Key())})
	case e.removalBlocked(path):
		e.add(rule.Finding{RuleID: RuleDeprecationExpiredUnremovable, Path: path,
			Message: fmt.Sprintf("%s of subject %s expired on %s and nobody reads it, but at level %s it cannot be removed yet: an earlier version compared with has it required without a default%s",
				d.Item, e.subject, date(d.ExpiresAt), e.in.Level, use),
			Hint: unremovableHint(d, e.in.Level)})
	default:
		msg := fmt.Sprintf("%s of subject %s expired on %s (deprecated on %s with a TTL of %s)%s and nobody reads it any more%s",
			d.Item, e.subject, date(d.ExpiresAt), date(d.DeprecatedAt), Days(d.TTLDays), why, use)
		if ended := lastEnded(d.Extensions, now); ended != nil {
			msg += fmt.Sprintf("; the extension for %s ended on %s", ended.Consumer, date(ended.Until))
		}
		e.add(rule.Finding{RuleID: RuleDeprecationExpired, Path: path, Message: msg,
			Hint: fmt.Sprintf("the TTL is over: remove %s from the schema%s", d.Item, use)})
	}
}

// removalBlocked reports whether removing the field at path would be
// incompatible at the level: the level reads forward (old readers read
// the new data) and an earlier version it compares with has the field
// required without a default, so old readers cannot fill it in. Keeping
// the field is then the one open path, and must stay allowed.
func (e *evaluation) removalBlocked(path string) bool {
	if !e.in.Level.Forward() {
		return false
	}
	against := e.in.Against
	if len(against) == 0 && e.in.Previous != nil && e.in.Previous.Schema != nil {
		against = []compat.Schema{e.in.Previous.Schema}
	}
	if len(against) > 0 && !e.in.Level.Transitive() {
		against = against[len(against)-1:]
	}
	for _, sc := range against {
		for _, f := range compat.Fields(sc) {
			if f.Path == path && f.Required && !f.HasDefault {
				return true
			}
		}
	}
	return false
}

// defaultFirst is the hint's addition when the field cannot be removed
// at the level until it has a default.
func (e *evaluation) defaultFirst(path string) string {
	if !e.removalBlocked(path) {
		return ""
	}
	return fmt.Sprintf("; at level %s it cannot be removed while an earlier version requires it without a default: give it a default first", e.in.Level)
}

func unremovableHint(d Deprecation, level compat.Level) string {
	if level.Transitive() {
		return fmt.Sprintf("keep %s (allowed): at %s a field that an earlier version requires without a default can never be removed; lower the level or move to a new subject to drop it", d.Item, level)
	}
	return fmt.Sprintf("keep %s and give it a default in this version (allowed), then remove it in the next one", d.Item)
}

func keepHint(d Deprecation, readers []string, subject string) string {
	if len(readers) == 0 {
		return fmt.Sprintf("nobody reads %s: you may remove it now, or stop producing it before %s", d.Item, date(d.ExpiresAt))
	}
	return fmt.Sprintf("keep %s until its readers (%s) have migrated (charter lineage deprecations --subject %s); removing it is refused while anyone reads it",
		d.Item, strings.Join(readers, ", "), subject)
}

// removedFields reports the deprecated fields of the previous version
// that the candidate drops: the "remove" column of the table.
func (e *evaluation) removedFields() {
	prev := e.in.Previous
	if prev == nil || prev.Schema == nil || e.in.Existing {
		return
	}
	had := byPath(compat.Fields(prev.Schema))
	have := byPath(e.fields)
	now := e.in.Now
	for _, d := range e.in.State.Deprecations {
		if d.Kind != ItemField || d.Source == SourceSchema {
			continue
		}
		if _, ok := had[d.Path]; !ok {
			continue
		}
		if _, ok := have[d.Path]; ok {
			continue
		}
		extended, without := fieldReaders(d, e.in.State.Readers, now)
		readers := append(append([]string(nil), without...), extended...)
		sort.Strings(readers)
		expired := d.StateAt(now) == StateExpired
		switch {
		case len(readers) > 0:
			when := fmt.Sprintf("before it expires on %s (%s left)", date(d.ExpiresAt), Days(d.DaysLeft(now)))
			if expired {
				when = fmt.Sprintf("after it expired on %s", date(d.ExpiresAt))
			}
			e.add(rule.Finding{RuleID: RuleDeprecationRemovalGuarded, Path: d.Path, Consumer: readers[0],
				Message: fmt.Sprintf("removing %s of subject %s %s, while consumers still read it: %s",
					d.Item, e.subject, when, describeReaders(d, readers, now)),
				Hint: fmt.Sprintf("keep %s (that is allowed) until nobody reads it (now %s; charter lineage deprecations --subject %s)",
					d.Item, strings.Join(readers, ", "), e.subject)})
		case !expired:
			e.add(rule.Finding{RuleID: RuleDeprecationRemovedEarly, Path: d.Path,
				Message: fmt.Sprintf("%s of subject %s is removed before it expires on %s (%s left); nobody reads it",
					d.Item, e.subject, date(d.ExpiresAt), Days(d.DaysLeft(now))),
				Hint: "nothing to do if no consumer outside Charter's lineage reads it"})
		}
	}
}

// Days is "1 day", "0 days", "12 days".
func Days(n int) string { return rule.Plural(n, "day") }
