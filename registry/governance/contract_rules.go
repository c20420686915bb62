package governance

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
)

// CategoryContract is the category of the consumer-contract rules
// (package contracts' rule IDs, CONTRACT_…), which the registry reports
// when a registration breaks a published contract (Charter issue 5).
const CategoryContract = "contract"

// ContractSeverity is the default severity, in the registry, of a
// contract rule of severity s: a contract error is a warning unless the
// operator raises the rule to "error" in the policy (so a registration
// from an unmodified Confluent client is never refused because of a
// contract it does not know about); warnings stay warnings, notices
// notices.
func ContractSeverity(s contracts.Severity) rule.Severity {
	if s == contracts.SeverityNotice {
		return rule.Notice
	}
	return rule.Warning
}

// contractRulesAdded lists package contracts' rules in the governance
// table (before rules.go's init sorts and registers it), so a policy may
// configure them and PolicyConfig.Severity knows their defaults.
var contractRulesAdded = func() bool {
	for _, r := range contracts.Rules() {
		rules = append(rules, rule.Rule{ID: r.ID, Category: CategoryContract, Severity: ContractSeverity(r.Severity),
			Purpose: r.Purpose, Source: r.Source})
	}
	return true
}()

// RuleDeprecationRemovalGuarded is the removal guard of Charter issue 5
// §7: removing a deprecated field is breaking until it has expired and no
// published contract still reads it without a live extension.
const RuleDeprecationRemovalGuarded = "DEPRECATION_REMOVAL_GUARDED"

var removalGuardAdded = func() bool {
	rules = append(rules, rule.Rule{ID: RuleDeprecationRemovalGuarded, Category: CategoryDeprecation, Severity: rule.Error,
		Source: "Charter issue 5 §7",
		Purpose: "The new version removes a field deprecated through the governance API while published contracts still read it: " +
			"before its expiry, or after it when a reader holds no running extension (inline schema deprecations are not guarded, " +
			"so an unmodified Confluent client is never refused by it)."})
	return true
}()

// RemovalGuardInput is one check of the removal guard: the subject's
// deprecations, the field paths the candidate still has, the fields each
// consumer's published contract reads (consumer → schema paths) and the
// time.
type RemovalGuardInput struct {
	Subject      string
	Now          time.Time
	Deprecations []Deprecation
	// Previous are the field paths of the subject's latest version (nil
	// for a first version, or a re-registration of an existing version:
	// nothing is removed then); Fields the candidate's (compat.Fields).
	Previous []string
	Fields   []string
	// Readers maps a consumer to the paths its published contract reads.
	Readers map[string][]string
}

// RemovalGuard returns one DEPRECATION_REMOVAL_GUARDED finding (severity
// Error, before the policy) per field deprecation of source SourceAPI that
// the candidate removes (the previous version has it, the candidate not) while published contracts read it (the field or a
// field under it): before expiry every reader is named; after expiry the
// readers without a running extension are, and none means no finding.
func RemovalGuard(in RemovalGuardInput) []rule.Finding {
	have, had := map[string]bool{}, map[string]bool{}
	for _, p := range in.Fields {
		have[p] = true
	}
	for _, p := range in.Previous {
		had[p] = true
	}
	var out []rule.Finding
	for _, d := range in.Deprecations {
		if d.Kind != ItemField || d.Source == SourceSchema || !had[d.Path] || have[d.Path] {
			continue
		}
		readers := ReadersOf(d.Path, in.Readers)
		if len(readers) == 0 {
			continue
		}
		expired := d.StateAt(in.Now) == StateExpired
		live := map[string]time.Time{}
		for _, x := range d.ActiveExtensions(in.Now) {
			if _, ok := live[x.Consumer]; !ok {
				live[x.Consumer] = x.Until
			}
		}
		var blocking []string
		for _, c := range readers {
			if _, ext := live[c]; !expired || !ext {
				blocking = append(blocking, c)
			}
		}
		if len(blocking) == 0 {
			continue
		}
		var msg string
		if expired {
			msg = fmt.Sprintf("removing %s of subject %s: it expired on %s but published contracts still read it without a running extension: %s",
				d.Item, in.Subject, date(d.ExpiresAt), strings.Join(blocking, ", "))
		} else {
			left := d.DaysLeft(in.Now)
			msg = fmt.Sprintf("removing %s of subject %s before it expires on %s (%d %s left); published contracts still read it: %s",
				d.Item, in.Subject, date(d.ExpiresAt), left, plural(left, "day", "days"), strings.Join(blocking, ", "))
		}
		out = append(out, rule.Finding{RuleID: RuleDeprecationRemovalGuarded, Severity: rule.Error, Subject: in.Subject,
			Path: d.Path, Consumer: blocking[0], Message: msg,
			Hint: fmt.Sprintf("keep %s until it has expired and every consumer reading it has migrated (charter lineage deprecations --subject %s) or holds an extension",
				d.Item, in.Subject)})
	}
	return out
}

// Covers reports whether reading read reads the field at path: the field
// itself or something inside it (".carrier" covers ".carrier.code",
// ".carrier<acme.Carrier>.code", ".lines[]…", ".attrs{}…"), as lineage's
// impact query counts readers.
func Covers(path, read string) bool {
	if read == path {
		return true
	}
	if !strings.HasPrefix(read, path) {
		return false
	}
	switch read[len(path)] {
	case '.', '[', '{', '<':
		return true
	}
	return false
}

// ReadersOf returns, sorted, the consumers of readers (consumer → paths
// read) that read path or a field under it (Covers).
func ReadersOf(path string, readers map[string][]string) []string {
	var out []string
	for c, paths := range readers {
		for _, p := range paths {
			if Covers(path, p) {
				out = append(out, c)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
