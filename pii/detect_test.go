package pii_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/pii"
)

type patternCases struct {
	Match   []string `json:"match"`
	NoMatch []string `json:"noMatch"`
}

func loadPatternCases(t *testing.T) map[string]patternCases {
	t.Helper()
	raw, err := os.ReadFile("testdata/patterns.json")
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	out := map[string]patternCases{}
	for id, v := range all {
		if strings.HasPrefix(id, "_") {
			continue
		}
		var c patternCases
		if err := json.Unmarshal(v, &c); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out[id] = c
	}
	return out
}

// caseField reads "name[:type][|doc]"; a name starting with "." is a path.
func caseField(c string) compat.Field {
	var f compat.Field
	if i := strings.IndexByte(c, '|'); i >= 0 {
		c, f.Doc = c[:i], c[i+1:]
	}
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c, f.Type = c[:i], c[i+1:]
	}
	if f.Type == "" {
		f.Type = "string"
	}
	if strings.HasPrefix(c, ".") {
		f.Path = c
		f.Name = c[strings.LastIndexAny(c, ".]")+1:]
	} else {
		f.Path, f.Name = "."+c, c
	}
	return f
}

func matchIDs(ms []pii.Match) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.PatternID
	}
	return ids
}

// TestPatternCases runs each pattern's true and false positives from
// testdata/patterns.json.
func TestPatternCases(t *testing.T) {
	t.Parallel()
	d := pii.DefaultDetector()
	for id, cs := range loadPatternCases(t) {
		t.Run(id, func(t *testing.T) {
			for _, c := range cs.Match {
				ms := d.Detect(caseField(c))
				i := slices.IndexFunc(ms, func(m pii.Match) bool { return m.PatternID == id })
				if i < 0 {
					t.Errorf("%q: want %s, got %v", c, id, matchIDs(ms))
					continue
				}
				if m := ms[i]; !strings.Contains(m.Reason, strings.ReplaceAll(m.Words, "_", " ")) && !strings.Contains(m.Reason, m.Words) {
					t.Errorf("%q: reason %q does not name the words %q", c, m.Reason, m.Words)
				}
			}
			for _, c := range cs.NoMatch {
				if ms := d.Detect(caseField(c)); slices.Contains(matchIDs(ms), id) {
					t.Errorf("%q: want no %s, got %+v", c, id, ms)
				}
			}
		})
	}
}

// TestEveryPatternHasCases: each built-in pattern is well formed and has
// at least three true and two false positives; every case names a known
// pattern.
func TestEveryPatternHasCases(t *testing.T) {
	t.Parallel()
	cases := loadPatternCases(t)
	idRe := regexp.MustCompile(`^PII_[A-Z0-9_]+$`)
	seen := map[string]bool{}
	for _, p := range pii.Patterns() {
		seen[p.ID] = true
		if !idRe.MatchString(p.ID) {
			t.Errorf("%s: IDs are SCREAMING_SNAKE with the PII_ prefix", p.ID)
		}
		if p.Category == "" || p.Purpose == "" || len(p.Names) == 0 || p.Kinds == 0 || p.Confidence == 0 {
			t.Errorf("%s: category, purpose, names, kinds and confidence are required: %+v", p.ID, p)
		}
		c := cases[p.ID]
		if len(c.Match) < 3 || len(c.NoMatch) < 2 {
			t.Errorf("%s: has %d true and %d false positives in testdata/patterns.json, want at least 3 and 2", p.ID, len(c.Match), len(c.NoMatch))
		}
	}
	for id := range cases {
		if !seen[id] {
			t.Errorf("testdata/patterns.json has cases for unknown pattern %s", id)
		}
	}
	if n := len(pii.Patterns()); n < 30 {
		t.Errorf("%d patterns, the issue asks for at least 30", n)
	}
}

func TestDetectConfidenceAndOrder(t *testing.T) {
	t.Parallel()
	d := pii.DefaultDetector()
	tests := []struct {
		field      compat.Field
		wantIDs    []string
		wantConf   pii.Confidence
		wantSource string
	}{
		{compat.Field{Name: "customer_email", Path: ".customer_email", Type: "string"}, []string{"PII_EMAIL"}, pii.High, "name"},
		{compat.Field{Name: "address", Path: ".address", Type: "string"}, []string{"PII_POSTAL_ADDRESS"}, pii.Medium, "name"},
		{compat.Field{Name: "city", Path: ".city", Type: "string"}, []string{"PII_CITY"}, pii.Low, "name"},
		{compat.Field{Name: "contact", Path: ".contact", Type: "string", Doc: "Their e-mail address."}, []string{"PII_EMAIL"}, pii.Medium, "doc"},
		// Two patterns: name first, then the doc's; sorted by confidence.
		{compat.Field{Name: "ssn", Path: ".ssn", Type: "string", Doc: "Date of birth, oddly"}, []string{"PII_SSN", "PII_DATE_OF_BIRTH"}, pii.High, "name"},
		// A name match is not repeated from the doc.
		{compat.Field{Name: "email", Path: ".email", Type: "string", Doc: "email address"}, []string{"PII_EMAIL"}, pii.High, "name"},
		{compat.Field{Name: "card_holder_name", Path: ".card_holder_name", Type: "string"}, []string{"PII_PERSON_NAME"}, pii.High, "name"},
	}
	for _, tt := range tests {
		ms := d.Detect(tt.field)
		if got := matchIDs(ms); !slices.Equal(got, tt.wantIDs) {
			t.Errorf("%s: patterns %v, want %v (%+v)", tt.field.Name, got, tt.wantIDs, ms)
			continue
		}
		if ms[0].Confidence != tt.wantConf || ms[0].Source != tt.wantSource {
			t.Errorf("%s: %s from %s, want %s from %s", tt.field.Name, ms[0].Confidence, ms[0].Source, tt.wantConf, tt.wantSource)
		}
	}
	if ms := d.Detect(compat.Field{Path: ".a.customer_email", Type: "string"}); len(ms) != 1 || ms[0].PatternID != "PII_EMAIL" {
		t.Errorf("a field without Name is read from its path: %v", ms)
	}
	m := d.Detect(compat.Field{Name: "billingEmailAddress", Type: "string"})[0]
	if m.Words != "email_address" || m.Reason != `name "billing_email_address" contains "email_address": an email address` {
		t.Errorf("the longest words are named: %+v", m)
	}
}

func TestDetectorOptions(t *testing.T) {
	t.Parallel()
	emailOptIn := compat.Field{Name: "email_opt_in", Type: "string"}
	serverAddress := compat.Field{Name: "server_address", Type: "string"}
	d, err := pii.NewDetector(pii.WithoutDefaultAllowList())
	if err != nil {
		t.Fatal(err)
	}
	// Without the allow-list "opt" still marks a consent flag, but a
	// server's address looks postal.
	if ms := d.Detect(emailOptIn); len(ms) != 0 {
		t.Errorf("email_opt_in: %v", ms)
	}
	if ms := d.Detect(serverAddress); len(ms) != 1 || ms[0].PatternID != "PII_POSTAL_ADDRESS" {
		t.Errorf("server_address without the allow-list: %v", ms)
	}
	d, err = pii.NewDetector(pii.WithAllowList("legacyEmail"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"legacy_email", "LegacyEmail", "old_legacy_email_2"} {
		if ms := d.Detect(compat.Field{Name: n, Type: "string"}); len(ms) != 0 {
			t.Errorf("%s is allow-listed: %v", n, ms)
		}
	}
	if ms := d.Detect(compat.Field{Name: "email_legacy", Type: "string"}); len(ms) == 0 {
		t.Error("allow-list entries match words in order")
	}
	if ms := d.Detect(serverAddress); len(ms) != 0 {
		t.Errorf("added entries keep the defaults: %v", ms)
	}
	custom := pii.Pattern{ID: "PII_EMPLOYEE_NUMBER", Category: pii.CategoryIdentity, Purpose: "an employee number", Names: []string{"employee_number", "staff_no"}, Kinds: pii.KindString | pii.KindNumber}
	d, err = pii.NewDetector(pii.WithPatterns(custom))
	if err != nil {
		t.Fatal(err)
	}
	if ms := d.Detect(compat.Field{Name: "staffNo", Type: "long"}); len(ms) != 1 || ms[0].PatternID != "PII_EMPLOYEE_NUMBER" || ms[0].Confidence != pii.High {
		t.Errorf("custom pattern: %v", ms)
	}
	for _, bad := range []pii.Pattern{{ID: "PII_EMAIL", Names: []string{"x"}}, {ID: "", Names: []string{"x"}}, {ID: "PII_X"}} {
		if _, err := pii.NewDetector(pii.WithPatterns(bad)); err == nil || !strings.HasPrefix(err.Error(), "new detector: ") {
			t.Errorf("pattern %+v: err = %v", bad, err)
		}
	}
	if got := pii.DefaultAllowList(); !slices.Contains(got, "email_opt_in") {
		t.Errorf("DefaultAllowList: %v", got)
	}
}

func TestScan(t *testing.T) {
	t.Parallel()
	fields := []compat.Field{
		{Path: ".id", Name: "id", Type: "string"},
		{Path: ".email", Name: "email", Type: "string"},
		{Path: ".email_verified", Name: "email_verified", Type: "boolean"},
		{Path: ".lines[].ip", Name: "ip", Type: "string"},
	}
	got := pii.DefaultDetector().Scan(fields)
	if len(got) != 2 || got[0].Field.Path != ".email" || got[1].Field.Path != ".lines[].ip" || got[1].Matches[0].PatternID != "PII_IP_ADDRESS" {
		t.Errorf("Scan: %+v", got)
	}
}

func TestConfidenceText(t *testing.T) {
	t.Parallel()
	for _, c := range []pii.Confidence{pii.Low, pii.Medium, pii.High} {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back pii.Confidence
		if err := back.UnmarshalText([]byte(strings.ToUpper(string(b)))); err != nil || back != c {
			t.Errorf("%s: round trip gave %v, %v", c, back, err)
		}
	}
	if _, err := pii.Confidence(0).MarshalText(); err == nil {
		t.Error("zero confidence marshals")
	}
	var c pii.Confidence
	if err := c.UnmarshalText([]byte("sure")); err == nil {
		t.Error("unknown confidence accepted")
	}
}
