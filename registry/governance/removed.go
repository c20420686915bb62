package governance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Removals returns the fields of prev that cur no longer has, as
// RemovedField records made at now by version (the new version's
// number). Protobuf records carry the field number and message.
func Removals(subject string, prev, cur compat.Schema, version int, now time.Time) []RemovedField {
	if prev == nil || cur == nil {
		return nil
	}
	curBy := byPath(compat.Fields(cur))
	nums := FieldNumbers(prev)
	var out []RemovedField
	for _, f := range uniqueFields(compat.Fields(prev)) {
		if _, ok := curBy[f.Path]; ok {
			continue
		}
		r := RemovedField{Subject: subject, Path: f.Path, Name: f.Name, Type: f.Type,
			RemovedInVersion: version, RemovedAt: now.UTC()}
		if n := nums[f.Path]; n != 0 {
			r.Number, r.Parent = n, parentPath(f.Path)
		}
		out = append(out, r)
	}
	return out
}

// Restored returns the paths of removed fields that cur has again with a
// type equivalent to the one removed: their reservation ends.
func Restored(removed []RemovedField, cur compat.Schema) []string {
	curBy := byPath(compat.Fields(cur))
	var out []string
	for _, r := range removed {
		if f, ok := curBy[r.Path]; ok && sameType(r.Type, f.Type) {
			out = append(out, r.Path)
		}
	}
	return out
}

// sameType compares two Field types, ignoring a null branch (an optional
// field keeps its type): "string", "union{null,string}" and
// "string|null" are the same type.
func sameType(a, b string) bool {
	return a == b || nonNull(a) == nonNull(b)
}

func nonNull(t string) string {
	if strings.HasPrefix(t, "union{") && strings.HasSuffix(t, "}") {
		var keep []string
		for _, p := range strings.Split(t[len("union{"):len(t)-1], ",") {
			if p = strings.TrimSpace(p); p != "null" {
				keep = append(keep, p)
			}
		}
		if len(keep) == 1 {
			return keep[0]
		}
		return "union{" + strings.Join(keep, ",") + "}"
	}
	if strings.Contains(t, "|") {
		var keep []string
		for _, p := range strings.Split(t, "|") {
			if p != "null" {
				keep = append(keep, p)
			}
		}
		slices.Sort(keep)
		return strings.Join(keep, "|")
	}
	return t
}

// reuseFindings reports fields of cur that bring back a removed name with
// another type (REMOVED_FIELD_REUSED) and Protobuf fields that reuse a
// removed number for another field or type (REMOVED_FIELD_NUMBER_REUSED).
func reuseFindings(subject string, removed []RemovedField, cur compat.Schema) []rule.Finding {
	if len(removed) == 0 || cur == nil {
		return nil
	}
	fields := uniqueFields(compat.Fields(cur))
	curBy := byPath(fields)
	nums := FieldNumbers(cur)
	var out []rule.Finding
	for _, r := range removed {
		if f, ok := curBy[r.Path]; ok && !sameType(r.Type, f.Type) {
			out = append(out, rule.Finding{RuleID: RuleRemovedFieldReused, Subject: subject, Path: f.Path,
				Message: fmt.Sprintf("field %s was removed in version %d when its type was %s; it comes back as %s, so data written before the removal would be misread",
					Display(r.Path), r.RemovedInVersion, r.Type, f.Type),
				Hint: fmt.Sprintf("give the new field another name, or bring it back as %s", r.Type)})
		}
		if r.Number == 0 {
			continue
		}
		for _, f := range fields {
			if parentPath(f.Path) != r.Parent || nums[f.Path] != r.Number {
				continue
			}
			if f.Name == r.Name && sameType(r.Type, f.Type) {
				continue // the same field, back
			}
			out = append(out, rule.Finding{RuleID: RuleRemovedNumberReused, Subject: subject, Path: f.Path,
				Message: fmt.Sprintf("field number %d of %s was %s %s, removed in version %d; %s %s reuses it, so old data would decode as the new field",
					r.Number, Display(r.Parent), r.Type, r.Name, r.RemovedInVersion, f.Type, f.Name),
				Hint: fmt.Sprintf("use a new field number, and add `reserved %d;` to the message", r.Number)})
		}
	}
	return out
}
