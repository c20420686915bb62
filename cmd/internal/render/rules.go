package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
)

// Rules writes the rule table: text (aligned columns ID, FORMAT,
// CATEGORY, SEVERITY, PROFILES, PURPOSE), json ({"rules": [...]}) or
// markdown (a table, as docs/rules.md would hold it). The profiles column
// is there when a listed rule has profiles. github and sarif are refused.
func Rules(w io.Writer, f Format, rules []rule.Rule, o Options) error {
	var b strings.Builder
	withProfiles := slices.ContainsFunc(rules, func(r rule.Rule) bool { return len(r.Profiles) > 0 })
	switch f {
	case Text:
		st := newStyles(w, o.Color)
		idW, fmtW, catW, profW := len("ID"), len("FORMAT"), len("CATEGORY"), len("PROFILES")
		for _, r := range rules {
			idW, fmtW, catW = max(idW, len(r.ID)), max(fmtW, len(formatName(r))), max(catW, len(r.Category))
			profW = max(profW, len(profiles(r)))
		}
		profHead, profCell := "", func(rule.Rule) string { return "" }
		if withProfiles {
			profHead = st.subject.Render(pad("PROFILES", profW)) + "  "
			profCell = func(r rule.Rule) string { return pad(profiles(r), profW) + "  " }
		}
		fmt.Fprintf(&b, "%s  %s  %s  %s  %s%s\n", st.subject.Render(pad("ID", idW)), st.subject.Render(pad("FORMAT", fmtW)),
			st.subject.Render(pad("CATEGORY", catW)), st.subject.Render(pad("SEVERITY", 8)), profHead, st.subject.Render("PURPOSE"))
		for _, r := range rules {
			fmt.Fprintf(&b, "%s  %s  %s  %s  %s%s\n", st.rule.Render(pad(r.ID, idW)), pad(formatName(r), fmtW), pad(r.Category, catW),
				severityCell(st, r), profCell(r), r.Purpose)
		}
		fmt.Fprintf(&b, "\n%s\n", rule.Plural(len(rules), "rule"))
	case JSON:
		if rules == nil {
			rules = []rule.Rule{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			Rules []rule.Rule `json:"rules"`
		}{rules}); err != nil {
			return fmt.Errorf("write json output: %w", err)
		}
		return nil
	case Markdown:
		if withProfiles {
			b.WriteString("| ID | Format | Category | Severity | Profiles | Purpose |\n| --- | --- | --- | --- | --- | --- |\n")
		} else {
			b.WriteString("| ID | Format | Category | Severity | Purpose |\n| --- | --- | --- | --- | --- |\n")
		}
		for _, r := range rules {
			prof := ""
			if withProfiles {
				prof = strings.ReplaceAll(profiles(r), ",", ", ") + " | "
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s%s |\n", code(r.ID), formatName(r), r.Category, r.DefaultSeverity(), prof, cell(r.Purpose))
		}
	default:
		return fmt.Errorf("invalid --format %q for rules: want text, json or markdown", f)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write %s output: %w", f, err)
	}
	return nil
}

// profiles is the profiles cell of r: "WIRE,WIRE_JSON", "" for a rule
// that always runs.
func profiles(r rule.Rule) string { return strings.Join(r.Profiles, ",") }

func formatName(r rule.Rule) string {
	if r.Format == "" {
		return "any"
	}
	return string(r.Format)
}

// severityCell is the padded default severity of r: "off", unstyled, for
// a rule that reports nothing until configured.
func severityCell(st styles, r rule.Rule) string {
	if r.Off {
		return pad(r.DefaultSeverity(), 8)
	}
	return st.sev[r.Severity].Render(pad(r.Severity.String(), 8))
}
