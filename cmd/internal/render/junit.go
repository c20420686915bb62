package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/action/project"
)

// JUnit XML, as Jenkins, GitLab, Buildkite, CircleCI and Azure Pipelines
// read test reports: one <testsuite> per subject, one <testcase> per
// finding (named by its rule and field path) or, for a subject without
// findings, one passing testcase "check". A failing finding (an error, or
// a warning under fail-on warning) is a <failure>; the others pass and
// carry their text in <system-out>.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func checkJUnit(w io.Writer, r *project.Result, o Options) error {
	doc := junitSuites{Name: o.title()}
	index := map[string]int{}
	suite := func(name string) *junitSuite {
		i, ok := index[name]
		if !ok {
			i = len(doc.Suites)
			index[name] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: name})
		}
		return &doc.Suites[i]
	}
	// Subjects first, in the result's order, so a passing subject has its
	// suite too; a finding without a subject is filed under its file.
	for _, s := range r.Subjects {
		suite(suiteName(s.Subject, s.File))
	}
	for _, f := range r.Findings {
		s := suite(suiteName(f.Subject, f.File))
		name := f.RuleID
		if f.Path != "" {
			name += " " + f.Path
		}
		if f.Consumer != "" {
			name += " (consumer " + f.Consumer + ")"
		}
		text := f.Message
		if d := detail(f); d != "" {
			text += " (" + d + ")"
		}
		if f.Hint != "" {
			text += "\nfix: " + f.Hint
		}
		if e := evidenceText(f); e != "" {
			text += "\n" + e
		}
		if loc := location(f, o.PathPrefix); loc != "" {
			text = loc + ": " + text
		}
		c := junitCase{Name: name, ClassName: s.Name, Line: f.Line}
		if f.File != "" {
			c.File = o.PathPrefix + f.File
		}
		if o.fails(f.Severity) {
			c.Failure = &junitFailure{Message: firstLine(f.Message), Type: f.Severity.String(), Text: text}
			s.Failures++
		} else {
			c.SystemOut = f.Severity.String() + ": " + text
		}
		s.Cases = append(s.Cases, c)
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		if len(s.Cases) == 0 {
			s.Cases = []junitCase{{Name: "check", ClassName: s.Name}}
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// suiteName names a subject's suite: the subject, else its file.
func suiteName(subject, file string) string {
	if subject != "" {
		return subject
	}
	if file != "" {
		return file
	}
	return "project"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
