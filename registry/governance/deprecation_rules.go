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
	// RuleDeprecationRemovalGuarded: a deprecated field removed while
	// consumers still read it.
	RuleDeprecationRemovalGuarded = "DEPRECATION_REMOVAL_GUARDED"
)

var deprecationTableRules = []rule.Rule{
	{ID: RuleDeprecationExpiredRead, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: "Charter issue 10 §3",
		Purpose: "The new version keeps an expired field that consumers without a running extension still read: allowed, so that they do not break, and each of them is named."},
	{ID: RuleDeprecationRemovedEarly, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: "Charter issue 10 §3",
		Purpose: "The new version removes a deprecated field before its expiry; nobody reads it, so the removal is allowed."},
	{ID: RuleDeprecationRemovalGuarded, Category: rule.CategoryDeprecation, Severity: rule.Error, Source: "Charter issue 5 §7; issue 10 §3",
		Purpose: "The new version removes a field deprecated through the governance API while consumers (by published contract or declared lineage) still read it, " +
			"before or after its expiry, extension holders included; keeping it stays allowed."},
}

// fieldReaders returns the consumers that read d's field now, sorted,
// split into those holding a running extension of d and the others. A
// reader reads the field or a field under it (ReadersOf over readers);
// a consumer holding a running extension counts as a reader even when
// lineage does not list it (it asked for the field to stay).
func fieldReaders(d Deprecation, readers map[string][]string, now time.Time) (extended, without []string) {
	ext := map[string]bool{}
	for _, x := range d.ActiveExtensions(now) {
		if !ext[x.Consumer] {
			ext[x.Consumer] = true
			extended = append(extended, x.Consumer)
		}
	}
	for _, c := range ReadersOf(d.Path, readers) {
		if !ext[c] {
			without = append(without, c)
		}
	}
	sort.Strings(extended)
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
			Hint: keepHint(d, all, e.subject)})
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
