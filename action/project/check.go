package project

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// timedBaseline is a Baseline whose state depends on the moment judged
// (the registry's governance state).
type timedBaseline interface {
	loadAt(ctx context.Context, p *Project, want map[string]compat.Level, at time.Time) (*BaselineSet, error)
}

// Subject is one subject of a check.
type Subject struct {
	Name  string
	Level compat.Level
	// Current is the working tree's schema; nil when only the baseline
	// has the subject. Current.Parsed is nil when it does not parse.
	Current *Schema
	// Prior is the baseline's subject, nil for a new subject.
	Prior *Prior
	// Mapping is the charter.yaml entry the file matched, nil for a
	// subject only the baseline has.
	Mapping *Mapping

	// levelSet is true when charter.yaml's mapping or overrides set
	// Level; otherwise the baseline may give the subject's level.
	levelSet bool
	// registryLevel is the level the registry applies to the subject
	// ("" offline): Level is it, or charter.yaml's when that is at
	// least as strict.
	registryLevel compat.Level
}

// Fields lists the fields of the current schema (nil when it did not
// parse or its format lists none).
func (s *Subject) Fields() []compat.Field {
	if s.Current == nil || s.Current.Parsed == nil {
		return nil
	}
	return compat.Fields(s.Current.Parsed)
}

// Options configure Check.
type Options struct {
	// Baseline is what the working tree is compared with. Required.
	Baseline Baseline
	// At is the moment judged (`charter check --at`): TTLs, extensions
	// and, against a registry, its governance state (lineage readers)
	// as of then. Zero: Now().
	At time.Time
	// Now is the clock when At is zero; nil: time.Now.
	Now func() time.Time
	// Evidence, when positive, reads that many generated events of each
	// writer with each reader the subject's level compares
	// (compat/evidence, charter check --evidence): each compatibility
	// finding gets its counterexample (Finding.Evidence), each changed
	// subject its counts (SubjectResult.Evidence), and the evidence
	// rules' findings (warnings by default) are judged too.
	Evidence int
	// EvidenceTimeout bounds the evidence of one subject; zero means
	// DefaultEvidenceTimeout. A pair cut short is marked Partial.
	EvidenceTimeout time.Duration
	// Progress, when set, is called once the subjects are known with
	// done 0, then after each subject is judged, with how many are done
	// and the total; calls come one at a time, done increasing.
	Progress func(done, total int)
}

// Status says how a subject compares with the baseline.
type Status string

// Subject statuses.
const (
	StatusAdded     Status = "added"     // the baseline lacks it
	StatusChanged   Status = "changed"   // its schema differs from the baseline's latest
	StatusUnchanged Status = "unchanged" // same canonical schema
	StatusRemoved   Status = "removed"   // only the baseline has it
	StatusInvalid   Status = "invalid"   // its file does not parse
)

// SubjectResult summarizes one subject of a check.
type SubjectResult struct {
	Subject string            `json:"subject"`
	File    string            `json:"file,omitempty"`
	Format  compat.SchemaType `json:"format,omitempty"`
	Level   compat.Level      `json:"level,omitempty"`
	Status  Status            `json:"status"`
	// Compared is how many baseline versions the subject was checked
	// against.
	Compared int `json:"compared"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notices  int `json:"notices"`
	// Evidence is what generated events showed across the change
	// (Options.Evidence), nil without evidence or for a subject that
	// did not change.
	Evidence *EvidenceSummary `json:"evidence,omitempty"`
}

// Result is the outcome of Check: every finding, and a summary per subject.
type Result struct {
	// Against names the baseline.
	Against  string          `json:"against"`
	Subjects []SubjectResult `json:"subjects"`
	rule.Report
}

// Check compares every subject of the project's working tree with the
// baseline: each subject at its level (compat.Check against the
// baseline's versions), plus the project rules (see Rules) and the
// evaluators' findings. Findings are sorted by subject, severity (errors
// first), file, line and rule. The error is non-nil only when the check
// could not run (unreadable tree, unknown git revision, unreachable
// registry, failing evaluator); findings never make an error.
func Check(ctx context.Context, p *Project, opts Options) (*Result, error) {
	if opts.Baseline == nil {
		return nil, fmt.Errorf("check: no baseline")
	}
	current, err := p.load(ctx, dirTree{root: p.Root})
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &checker{p: p, against: opts.Baseline.String(), bySubject: map[string]*Subject{},
		ctx: ctx, evidence: opts.Evidence, evidenceTimeout: opts.EvidenceTimeout}
	if err := c.unmatchedPatterns(ctx); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	want := map[string]compat.Level{}
	for _, s := range current {
		c.addCurrent(s)
		if sub := c.bySubject[s.Subject]; s.Subject != "" && sub.levelSet {
			want[s.Subject] = sub.Level
		} else if s.Subject != "" {
			want[s.Subject] = ""
		}
	}
	c.now = opts.At
	if c.now.IsZero() {
		now := opts.Now
		if now == nil {
			now = time.Now
		}
		c.now = now()
	}
	c.now = c.now.UTC()
	var set *BaselineSet
	if tb, ok := opts.Baseline.(timedBaseline); ok {
		set, err = tb.loadAt(ctx, p, want, c.now)
	} else {
		set, err = opts.Baseline.Load(ctx, p, want)
	}
	if err != nil {
		return nil, err
	}
	c.profiles, c.states = set.ProtobufProfiles, set.States
	if c.pacts, err = loadPacts(ctx, p); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	for _, name := range sortedKeys(set.Levels) {
		sub, l := c.bySubject[name], set.Levels[name]
		if sub == nil || l == "" {
			continue
		}
		sub.registryLevel = l
		switch {
		case !sub.levelSet:
			sub.Level = l
		case !AtLeastAsStrict(sub.Level, l):
			// The registry's level decides, as its policy decides
			// severities: charter.yaml may make it stricter, never
			// weaker.
			c.add(rule.Finding{RuleID: RuleLevelIgnored, Severity: rule.Notice, Subject: name, File: c.configFile(),
				Message: fmt.Sprintf("charter.yaml sets level %s for subject %s, but the registry applies %s: registration is judged at %s, so check is too", sub.Level, name, l, l),
				Hint:    fmt.Sprintf("charter.yaml may only make the registry's level stricter (its directions include the registry's, transitive if the registry's is); to loosen it, change the subject's level in the registry (charter config set %s --level %s) if every producer and consumer may, or remove the level from charter.yaml", rule.ShellArg(name), sub.Level)}, sub)
			sub.Level = l
		}
	}
	for name, prior := range set.Subjects {
		if sub, ok := c.bySubject[name]; ok {
			sub.Prior = prior
		} else if set.Complete {
			c.bySubject[name] = &Subject{Name: name, Level: p.Config.LevelFor(name, nil), Prior: prior}
		}
	}
	subjects := make([]*Subject, 0, len(c.bySubject))
	for _, s := range c.bySubject {
		subjects = append(subjects, s)
	}
	sort.Slice(subjects, func(i, j int) bool { return subjects[i].Name < subjects[j].Name })
	for _, name := range sortedKeys(c.pacts) {
		if s := c.bySubject[name]; s == nil || (s.Current == nil && s.Prior == nil) {
			return nil, fmt.Errorf("check: %s: contracts name subject %q, which no schema file defines", p.ConfigPath, name)
		}
	}

	results := make([]subjectOutcome, len(subjects))
	var (
		progressMu sync.Mutex
		done       int
	)
	if opts.Progress != nil {
		opts.Progress(0, len(subjects))
	}
	c.parallel(len(subjects), func(i int) {
		results[i] = c.compare(subjects[i])
		if opts.Progress != nil {
			progressMu.Lock()
			done++
			opts.Progress(done, len(subjects))
			progressMu.Unlock()
		}
	})
	for _, r := range results {
		if r.err != nil {
			return nil, fmt.Errorf("check: %w", r.err)
		}
	}

	res := &Result{Against: c.against}
	for i, s := range subjects {
		c.findings = append(c.findings, results[i].findings...)
		sr := SubjectResult{Subject: s.Name, Level: s.Level, Status: results[i].status, Compared: results[i].compared, Evidence: results[i].evidence}
		if s.Current != nil {
			sr.File, sr.Format = s.Current.File, s.Current.Format
		} else if s.Prior != nil {
			sr.File, sr.Format = s.Prior.File, s.Prior.Format
		}
		res.Subjects = append(res.Subjects, sr)
	}
	for _, s := range c.unnamed {
		res.Subjects = append(res.Subjects, SubjectResult{File: s.File, Format: s.Format, Status: StatusInvalid})
	}
	sortFindings(c.findings)
	res.Findings = c.findings
	if res.Findings == nil {
		res.Findings = []rule.Finding{}
	}
	countFindings(res)
	return res, nil
}

type checker struct {
	p         *Project
	against   string
	bySubject map[string]*Subject
	unnamed   []*Schema // files that name no subject
	// profiles are the baseline's Protobuf rule profiles by subject.
	profiles map[string]string
	// states are the registry's governance states by subject (nil
	// offline); pacts charter.yaml's pacts by subject.
	states map[string]*governance.SubjectState
	pacts  map[string][]localPact
	// now is the moment judged.
	now time.Time
	// compatOnly judges compatibility only (charter diff).
	compatOnly bool
	// ctx is the check's; evidence and evidenceTimeout are
	// Options.Evidence and Options.EvidenceTimeout.
	ctx             context.Context
	evidence        int
	evidenceTimeout time.Duration

	mu       sync.Mutex
	findings []rule.Finding
}

type subjectOutcome struct {
	status   Status
	compared int
	findings []rule.Finding
	evidence *EvidenceSummary
	// err is a judgement that could not run (a published contract that
	// no longer parses): the check fails with it.
	err error
}

// addCurrent registers a working-tree schema under its subject.
func (c *checker) addCurrent(s *Schema) {
	if s.Subject == "" {
		c.unnamed = append(c.unnamed, s)
		c.add(rule.Finding{RuleID: RuleSchemaInvalid, Severity: rule.Error, File: s.File, Line: s.ErrLine,
			Message: oneLine(s.Err), Hint: "fix the file, or change its charter.yaml entry"}, nil)
		return
	}
	if first, dup := c.bySubject[s.Subject]; dup {
		c.add(rule.Finding{RuleID: RuleSubjectDuplicate, Severity: rule.Error, Subject: s.Subject, File: s.File,
			Message: fmt.Sprintf("%s maps to subject %q, which %s already defines", s.File, s.Subject, first.Current.File),
			Hint:    "give one of the files another subject (a subject or topic template in charter.yaml), or exclude it"}, first)
		return
	}
	level, set := c.p.Config.OverrideLevel(s.Subject, s.mapping)
	if !set {
		level = c.p.Config.Defaults.Level
	}
	c.bySubject[s.Subject] = &Subject{Name: s.Subject, Level: level, Current: s, Mapping: s.mapping, levelSet: set}
}

// add applies severity overrides and locations, then keeps the finding.
func (c *checker) add(f rule.Finding, s *Subject) {
	if f, ok := c.normalize(f, s); ok {
		c.mu.Lock()
		c.findings = append(c.findings, f)
		c.mu.Unlock()
	}
}

func (c *checker) normalize(f rule.Finding, s *Subject) (rule.Finding, bool) {
	var m *Mapping
	if s != nil {
		m = s.Mapping
	}
	sev, on := c.p.Config.SeverityFor(f.Subject, m, f.RuleID, f.Severity)
	if !on {
		return f, false
	}
	f.Severity = sev
	c.locate(&f, s)
	return f, true
}

// locate fills the finding's File and Line from s's schema file and the
// finding's Path when it has none.
func (c *checker) locate(f *rule.Finding, s *Subject) {
	if f.File == "" && s != nil && s.Current != nil {
		f.File = s.Current.File
		if f.Line == 0 && f.Path != "" {
			f.Line = newLocator(s.Current).line(f.Path)
		}
	}
}

// compare checks one subject against its baseline versions.
func (c *checker) compare(s *Subject) subjectOutcome {
	var out subjectOutcome
	keep := func(f rule.Finding) {
		if f, ok := c.normalize(f, s); ok {
			out.findings = append(out.findings, f)
		}
	}
	cur := s.Current
	switch {
	case cur == nil:
		out.status = StatusRemoved
		keep(rule.Finding{RuleID: RuleSubjectRemoved, Severity: rule.Warning, Subject: s.Name, File: s.Prior.File,
			Message: fmt.Sprintf("%s defined subject %q in %s and no file defines it now", s.Prior.File, s.Name, c.against),
			Hint:    "if the subject is retired, delete it in the registry when its consumers are gone; if the file moved, map the new path to the same subject"})
		return out
	case cur.Err != nil:
		out.status = StatusInvalid
		keep(rule.Finding{RuleID: RuleSchemaInvalid, Severity: rule.Error, Subject: s.Name, File: cur.File, Line: cur.ErrLine,
			Message: oneLine(cur.Err), Hint: "fix the schema so that it parses; nothing else was checked for this subject"})
		return out
	case s.Prior == nil:
		out.status = StatusAdded
		keep(rule.Finding{RuleID: RuleSubjectAdded, Severity: rule.Notice, Subject: s.Name, File: cur.File,
			Message: fmt.Sprintf("new subject %q (%s, level %s): %s does not have it", s.Name, cur.Format, s.Level, c.against),
			Hint:    "review it as a new contract: its first version is what later versions must stay compatible with"})
	case s.Prior.Format != cur.Format:
		// The registry accepts another schema type at level NONE only:
		// the gate reports SCHEMA_TYPE_CHANGED for each earlier version
		// the level compares with, as registration does.
		how := "the registry accepts it at level NONE only"
		if s.Level == compat.None {
			how = "level NONE accepts it"
		}
		keep(rule.Finding{RuleID: RuleSubjectFormatChanged, Severity: rule.Notice, Subject: s.Name, File: cur.File, Line: 1,
			Message: fmt.Sprintf("subject %q is %s in %s but %s now: %s", s.Name, s.Prior.Format, c.against, cur.Format, how),
			Hint:    "data written with the earlier format cannot be read with the new one: keep the format, or publish the new format under a new subject, unless every consumer moves with it"})
	}
	st := c.states[s.Name]
	baseProfile := c.profiles[s.Name]
	if st != nil {
		baseProfile = st.Policy.ProtobufProfile
	}
	f, notice, err := c.p.checker(cur, baseProfile, st != nil)
	if notice != nil {
		notice.File = c.configFile()
		keep(*notice)
	}
	if err != nil {
		out.status = StatusInvalid
		keep(rule.Finding{RuleID: RuleSchemaInvalid, Severity: rule.Error, Subject: s.Name, File: cur.File,
			Message: oneLine(err), Hint: "fix protobuf_profile in charter.yaml (charter rules lists the profiles); nothing else was checked for this subject"})
		return out
	}
	var previous []compat.Previous
	if s.Prior != nil {
		out.status = StatusChanged
		for _, pv := range s.Prior.Versions {
			if pv.Err != nil {
				keep(rule.Finding{RuleID: RuleBaselineInvalid, Severity: rule.Warning, Subject: s.Name, Version: pv.Version,
					Message: fmt.Sprintf("the baseline's schema (%s) does not parse, so it was not compared: %s", versionName(c.against, pv.Version), oneLine(pv.Err)),
					Hint:    "nothing to fix here unless the baseline is wrong; the working tree's schema itself parses"})
				continue
			}
			previous = append(previous, compat.Previous{Version: pv.Version, Schema: pv.Schema})
		}
		meta, _, _, err := c.candidateContract(s)
		if err != nil {
			out.err = err
			return out
		}
		previous = c.inGroup(s, previous, meta)
		if latest := s.latest(); latest != nil && c.existingVersion(s) == latest {
			out.status = StatusUnchanged
		}
		switch {
		case s.Level == compat.None:
		case s.Level.Transitive():
			out.compared = len(previous)
		default:
			out.compared = min(1, len(previous))
		}
	}
	fs, err := c.judge(s, f, previous)
	if err != nil {
		out.err = err
		return out
	}
	if c.evidence > 0 && out.status == StatusChanged {
		var more []rule.Finding
		out.evidence, more = c.readEvidence(s, previous, fs)
		for _, fd := range more {
			if fd, ok := c.normalize(fd, s); ok {
				fs = append(fs, fd)
			}
		}
	}
	for _, fd := range fs {
		if fd.Direction != "" && fd.Hint == "" {
			fd.Hint = directionHint(compat.Direction(fd.Direction), s)
		}
		out.findings = append(out.findings, fd)
	}
	return out
}

// parallel runs fn(0..n-1) on every CPU.
func (c *checker) parallel(n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(n, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func versionName(against string, v int) string {
	if v == 0 {
		return against
	}
	return fmt.Sprintf("version %d in %s", v, against)
}

// oneLine flattens an error to one line.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || r == ' ' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		space = false
		out = append(out, r)
	}
	return string(out)
}

// sortFindings orders findings by subject, severity (errors first), file,
// line, rule, path, direction, version and message.
func sortFindings(fs []rule.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Subject != b.Subject:
			return a.Subject < b.Subject
		case a.Severity != b.Severity:
			return a.Severity > b.Severity
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.RuleID != b.RuleID:
			return a.RuleID < b.RuleID
		case a.Path != b.Path:
			return a.Path < b.Path
		case a.Direction != b.Direction:
			return a.Direction < b.Direction
		case a.Version != b.Version:
			return a.Version > b.Version
		}
		return a.Message < b.Message
	})
}

func countFindings(r *Result) {
	idx := map[string]int{}
	for i, s := range r.Subjects {
		if s.Subject != "" {
			idx[s.Subject] = i
		}
	}
	for _, f := range r.Findings {
		i, ok := idx[f.Subject]
		if !ok {
			continue
		}
		switch f.Severity {
		case rule.Error:
			r.Subjects[i].Errors++
		case rule.Warning:
			r.Subjects[i].Warnings++
		default:
			r.Subjects[i].Notices++
		}
	}
}

// Passed reports whether the check found no error.
func (r *Result) Passed() bool { return !r.Failed() }
