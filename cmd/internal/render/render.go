// Package render prints the results of Charter's gates (`charter check`,
// `charter diff`) and its rule table in the formats a person or a tool
// reads:
//
//   - text: aligned and grouped by subject, coloured by severity with
//     lipgloss when Options.Color is set (the command sets it for a
//     terminal without NO_COLOR);
//   - json: a stable document described by the JSON Schema [ReportSchema]
//     (check-report.schema.json in this directory);
//   - github: GitHub Actions workflow commands (::error file=…,line=…::),
//     which annotate the pull request's files;
//   - markdown: a summary table for pull-request comments and
//     $GITHUB_STEP_SUMMARY;
//   - sarif: SARIF 2.1.0 for code-scanning UIs;
//   - gitlab: GitLab's Code Quality report (a Code Climate issue array),
//     for a job's artifacts:reports:codequality;
//   - junit: JUnit XML, one testcase per finding, for CI servers that
//     show test reports.
package render

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

// Format is an output format.
type Format string

// The output formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	GitHub   Format = "github"
	Markdown Format = "markdown"
	SARIF    Format = "sarif"
	GitLab   Format = "gitlab"
	JUnit    Format = "junit"
)

// Formats lists every format, in documentation order.
var Formats = []Format{Text, JSON, GitHub, Markdown, SARIF, GitLab, JUnit}

// ParseFormat accepts a format name in any letter case ("md" for
// markdown). The error names the accepted values.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f == "md" {
		f = Markdown
	}
	for _, known := range Formats {
		if f == known {
			return f, nil
		}
	}
	return "", fmt.Errorf("invalid --format %q: want one of %s", s, FormatNames())
}

// FormatNames returns "text, json, github, markdown, sarif, gitlab, junit".
func FormatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// ReportSchema is the JSON Schema (draft 2020-12) of the json format of
// [Check].
//
//go:embed check-report.schema.json
var ReportSchema []byte

// ReportSchemaVersion is the "schemaVersion" of the json format; it
// changes only when a field is removed or changes meaning.
const ReportSchemaVersion = 1

// Options tune rendering.
type Options struct {
	// Color turns on ANSI colours in the text format.
	Color bool
	// Title names the gate in the text, markdown and github formats:
	// "Charter schema check" when empty.
	Title string
	// ToolVersion is Charter's version, written in json and sarif.
	ToolVersion string
	// PathPrefix is put before every file path in the github and sarif
	// formats, which want paths relative to the repository root: the
	// project directory relative to the repository ("services/orders/"),
	// "" when the project is the repository root.
	PathPrefix string
	// ConfigFile is charter.yaml's path relative to the repository root,
	// where the gitlab format points findings that have no file of their
	// own: PathPrefix + "charter.yaml" when empty.
	ConfigFile string
	// FailOnWarning makes warnings fail the gate as errors do (charter
	// check --fail-on warning): the verdict of every format, the json
	// format's "passed" and the junit failures follow it.
	FailOnWarning bool
}

func (o Options) configFile() string {
	if o.ConfigFile == "" {
		return o.PathPrefix + "charter.yaml"
	}
	return o.ConfigFile
}

// fails reports whether a finding of severity s fails the gate.
func (o Options) fails(s rule.Severity) bool {
	return s == rule.Error || (o.FailOnWarning && s == rule.Warning)
}

// Failed reports whether r fails the gate under o: an error finding, or a
// warning when o.FailOnWarning is set.
func Failed(r *project.Result, o Options) bool {
	for _, f := range r.Findings {
		if o.fails(f.Severity) {
			return true
		}
	}
	return false
}

func (o Options) title() string {
	if o.Title == "" {
		return "Charter schema check"
	}
	return o.Title
}

// Check writes a check result in format f.
func Check(w io.Writer, f Format, r *project.Result, o Options) error {
	var err error
	switch f {
	case Text:
		err = checkText(w, r, o)
	case JSON:
		err = checkJSON(w, r, o)
	case GitHub:
		err = checkGitHub(w, r, o)
	case Markdown:
		err = checkMarkdown(w, r, o)
	case SARIF:
		err = checkSARIF(w, r, o)
	case GitLab:
		err = checkGitLab(w, r, o)
	case JUnit:
		err = checkJUnit(w, r, o)
	default:
		return fmt.Errorf("render: unknown format %q", f)
	}
	if err != nil {
		return fmt.Errorf("write %s output: %w", f, err)
	}
	return nil
}

// counts are the findings of a result by severity.
type counts struct{ errors, warnings, notices int }

func countOf(r *project.Result) counts {
	return counts{r.Count(rule.Error), r.Count(rule.Warning), r.Count(rule.Notice)}
}

// String is "N errors, N warnings, N notices".
func (c counts) String() string {
	return rule.Plural(c.errors, "error") + ", " + rule.Plural(c.warnings, "warning") + ", " + rule.Plural(c.notices, "notice")
}

// statusLine summarizes the subjects: "7 subjects: 3 changed, 2 unchanged, 1 added, 1 removed".
func statusLine(r *project.Result) string {
	order := []project.Status{project.StatusChanged, project.StatusUnchanged, project.StatusAdded, project.StatusRemoved, project.StatusInvalid}
	n := map[project.Status]int{}
	for _, s := range r.Subjects {
		n[s.Status]++
	}
	var parts []string
	for _, st := range order {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	line := rule.Plural(len(r.Subjects), "subject")
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}

// location is "file:line", "file", or "".
func location(f rule.Finding, prefix string) string {
	if f.File == "" {
		return ""
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s%s:%d", prefix, f.File, f.Line)
	}
	return prefix + f.File
}

// detail is what a finding adds after its message: the direction and the
// baseline version of a compatibility finding, the consumer of a contract
// finding.
func detail(f rule.Finding) string {
	var parts []string
	if f.Direction != "" {
		parts = append(parts, strings.ToLower(f.Direction))
	}
	if f.Version > 0 {
		parts = append(parts, fmt.Sprintf("against version %d", f.Version))
	}
	if f.Consumer != "" {
		parts = append(parts, "consumer "+f.Consumer)
	}
	return strings.Join(parts, ", ")
}

// groups splits sorted findings by subject, keeping their order.
func groups(fs []rule.Finding) [][]rule.Finding {
	var out [][]rule.Finding
	for i, f := range fs {
		if i == 0 || f.Subject != fs[i-1].Subject {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], f)
	}
	return out
}
