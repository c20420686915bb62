package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/rule"
)

// maxEventText bounds a counterexample in the formats a person reads
// (text, github, markdown, gitlab, junit); json and sarif carry it
// whole.
const maxEventText = 400

// evidenceText is what a finding's evidence (charter check --evidence)
// adds after its fix: its counterexample and what the reader did with
// it, or how many generated events showed nothing there; "" without
// evidence.
//
//	counterexample: {"carrier":"FEDEX"} is refused at .carrier: the reader's schema does not resolve …
func evidenceText(f rule.Finding) string {
	e := f.Evidence
	if e == nil {
		return ""
	}
	if len(e.Event) == 0 {
		return fmt.Sprintf("evidence: %s (%s read)", evidence.NotIsolated, rule.Plural(e.Events, "generated event"))
	}
	ev := eventText(e.Event)
	if strings.Contains(f.Message, ev) {
		return "" // an evidence rule's message already shows its event
	}
	what := "is refused"
	if e.Class != "refused" {
		what = "loses data"
	}
	return fmt.Sprintf("counterexample: %s %s at %s: %s", ev, what, e.Path, e.Reader)
}

// eventText is an event's JSON on one line, cut at maxEventText.
func eventText(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > maxEventText {
		s = s[:maxEventText-3] + "..."
	}
	return s
}

// maxUnexplained bounds the outcomes no rule names shown per subject
// (json and sarif carry them all).
const maxUnexplained = 3

// evidenceLines summarise the evidence of each subject that has some, in
// the subjects' order:
//
//	evidence for orders-value: 100 of 100 generated events read back equal over 1 pair
//	evidence for users-value: 200 generated events over 2 pairs: 150 equal, 0 with the reader's default, 0 with loss, 50 refused
func evidenceLines(r *project.Result) []string {
	var out []string
	for _, s := range r.Subjects {
		if s.Evidence != nil {
			out = append(out, "evidence for "+s.Subject+": "+evidenceSummary(*s.Evidence))
			for i, u := range s.Evidence.Unexplained {
				if i == maxUnexplained {
					out = append(out, fmt.Sprintf("evidence for %s: and %s no rule names", s.Subject, rule.Plural(len(s.Evidence.Unexplained)-i, "more outcome")))
					break
				}
				out = append(out, "evidence for "+s.Subject+": "+strings.TrimPrefix(u.Line(), "evidence "))
			}
		}
	}
	return out
}

func evidenceSummary(e project.EvidenceSummary) string {
	if e.NotRead != "" && e.Events == 0 {
		return "not read: " + e.NotRead
	}
	pairs := rule.Plural(e.Pairs, "pair")
	var line string
	if !e.Breaking() {
		line = fmt.Sprintf("%d of %s read back %s over %s", e.Equal+e.Defaulted, rule.Plural(e.Events, "generated event"), readBack(e.Equal, e.Defaulted), pairs)
	} else {
		line = fmt.Sprintf("%s over %s: %d equal, %d with the reader's default, %d with loss, %d refused", rule.Plural(e.Events, "generated event"), pairs, e.Equal, e.Defaulted, e.Lossy, e.Refused)
	}
	if e.Partial {
		line += " (cut short by the time bound)"
	}
	if e.NotRead != "" {
		line += "; not read: " + e.NotRead
	}
	return line
}

// readBack says how the events read back were read: "equal", "(all with
// the reader's default)" or "(40 equal, 60 with the reader's default)".
func readBack(equal, defaulted int) string {
	switch {
	case defaulted == 0:
		return "equal"
	case equal == 0:
		return "(all with the reader's default)"
	}
	return fmt.Sprintf("(%d equal, %d with the reader's default)", equal, defaulted)
}
