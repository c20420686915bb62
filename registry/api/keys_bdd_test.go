package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The AxonOps BDD suite's DEK registry scenarios
// (../shared/conformance/axonops/tests/bdd/features/dek_registry.feature,
// Apache-2.0, test data only), run by a small interpreter of the steps
// that file uses; the upstream step definitions are not in this
// repository. Each scenario runs on a fresh registry. The audit-log step
// checks AxonOps' own audit event format (event_type, hashes, transport),
// which Charter's audit log does not share: it is counted, not checked.

// bddFeature returns the path of an AxonOps feature file, or skips.
func bddFeature(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "conformance", "axonops", "tests", "bdd", "features", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no AxonOps BDD suite at %s", p)
	}
	return p
}

type bddStep struct {
	text  string
	doc   string
	table bool
}

type bddScenario struct {
	name  string
	steps []bddStep
}

// parseFeature reads the scenarios of a feature file (Background steps
// are "the schema registry is running" only, which a fresh env is).
func parseFeature(t *testing.T, path string) []bddScenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out    []bddScenario
		inDoc  bool
		doc    []string
		indent int
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if inDoc {
			if trim == `"""` {
				inDoc = false
				s := &out[len(out)-1]
				s.steps[len(s.steps)-1].doc = strings.Join(doc, "\n")
				continue
			}
			if len(line) >= indent {
				line = line[indent:]
			}
			doc = append(doc, line)
			continue
		}
		switch {
		case trim == `"""`:
			inDoc, doc, indent = true, nil, strings.Index(line, `"""`)
		case strings.HasPrefix(trim, "Scenario:") || strings.HasPrefix(trim, "Scenario Outline:"):
			out = append(out, bddScenario{name: strings.TrimSpace(trim[strings.Index(trim, ":")+1:])})
		case strings.HasPrefix(trim, "|"):
			if len(out) > 0 && len(out[len(out)-1].steps) > 0 {
				s := &out[len(out)-1]
				s.steps[len(s.steps)-1].table = true
			}
		case len(out) > 0:
			for _, kw := range []string{"Given ", "When ", "Then ", "And ", "But "} {
				if strings.HasPrefix(trim, kw) {
					s := &out[len(out)-1]
					s.steps = append(s.steps, bddStep{text: strings.TrimPrefix(trim, kw)})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	reRequest      = regexp.MustCompile(`^I (GET|POST|PUT|DELETE) "([^"]+)"( with body:)?$`)
	reStatus       = regexp.MustCompile(`^the response status should be (\d+)$`)
	reFieldString  = regexp.MustCompile(`^the response field "([^"]+)" should be "([^"]*)"$`)
	reFieldLiteral = regexp.MustCompile(`^the response field "([^"]+)" should be (true|false|-?\d+)$`)
	reFieldSet     = regexp.MustCompile(`^the response field "([^"]+)" should be non-empty$`)
	reFieldUnset   = regexp.MustCompile(`^the response field "([^"]+)" should be empty or absent$`)
	reErrorCode    = regexp.MustCompile(`^the response should have error code (\d+)$`)
	reContains     = regexp.MustCompile(`^the response should contain "([^"]*)"$`)
	reNotContains  = regexp.MustCompile(`^the response body should not contain "([^"]*)"$`)
	reArrayHas     = regexp.MustCompile(`^the response array should (not )?contain "([^"]*)"$`)
	reArrayHasInt  = regexp.MustCompile(`^the response array should contain integer (-?\d+)$`)
	reArrayLen     = regexp.MustCompile(`^the response should be an array of length (\d+)$`)
	reStore        = regexp.MustCompile(`^I store the response field "([^"]+)" as "([^"]+)"$`)
	reStored       = regexp.MustCompile(`^the response field "([^"]+)" should (not )?equal stored "([^"]+)"$`)
)

// bddRun runs one scenario; it returns "" when it passes, else why not,
// and how many audit-log steps it counted without checking.
func bddRun(t *testing.T, sc bddScenario) (fail string, auditSteps int) {
	e := newEnv(t)
	var (
		status int
		body   string
		stored = map[string]any{}
	)
	field := func(name string) (any, bool) {
		var m map[string]any
		if json.Unmarshal([]byte(body), &m) != nil {
			return nil, false
		}
		v, ok := m[name]
		return v, ok
	}
	str := func(v any) string {
		if s, ok := v.(string); ok {
			return s
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	for _, st := range sc.steps {
		s := st.text
		var m []string
		switch {
		case s == "the schema registry is running":
		case strings.HasPrefix(s, "the audit log should contain an event"):
			auditSteps++
		case reRequest.MatchString(s):
			m = reRequest.FindStringSubmatch(s)
			status, _, body = e.do(m[1], m[2], st.doc)
		case reStatus.MatchString(s):
			m = reStatus.FindStringSubmatch(s)
			if strconv.Itoa(status) != m[1] {
				return fmt.Sprintf("%s: got %d %s", s, status, body), auditSteps
			}
		case s == "the response should be valid JSON":
			if !json.Valid([]byte(body)) {
				return fmt.Sprintf("%s: %q", s, body), auditSteps
			}
		case reFieldString.MatchString(s):
			m = reFieldString.FindStringSubmatch(s)
			if v, ok := field(m[1]); !ok || str(v) != m[2] {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reFieldLiteral.MatchString(s):
			m = reFieldLiteral.FindStringSubmatch(s)
			if v, ok := field(m[1]); !ok || str(v) != m[2] {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reFieldSet.MatchString(s):
			m = reFieldSet.FindStringSubmatch(s)
			if v, ok := field(m[1]); !ok || v == nil || str(v) == "" {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reFieldUnset.MatchString(s):
			m = reFieldUnset.FindStringSubmatch(s)
			if v, ok := field(m[1]); ok && v != nil && str(v) != "" {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reErrorCode.MatchString(s):
			m = reErrorCode.FindStringSubmatch(s)
			if v, ok := field("error_code"); !ok || str(v) != m[1] {
				return fmt.Sprintf("%s: got %d %s", s, status, body), auditSteps
			}
		case reContains.MatchString(s):
			m = reContains.FindStringSubmatch(s)
			if !strings.Contains(body, m[1]) {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reNotContains.MatchString(s):
			m = reNotContains.FindStringSubmatch(s)
			if strings.Contains(body, m[1]) {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reArrayHas.MatchString(s), reArrayHasInt.MatchString(s), reArrayLen.MatchString(s):
			var arr []any
			if json.Unmarshal([]byte(body), &arr) != nil {
				return fmt.Sprintf("%s: not an array: %s", s, body), auditSteps
			}
			var items []string
			for _, v := range arr {
				items = append(items, str(v))
			}
			ok := true
			switch {
			case reArrayHas.MatchString(s):
				m = reArrayHas.FindStringSubmatch(s)
				ok = slices.Contains(items, m[2]) == (m[1] == "")
			case reArrayHasInt.MatchString(s):
				ok = slices.Contains(items, reArrayHasInt.FindStringSubmatch(s)[1])
			default:
				ok = strconv.Itoa(len(arr)) == reArrayLen.FindStringSubmatch(s)[1]
			}
			if !ok {
				return fmt.Sprintf("%s: got %s", s, body), auditSteps
			}
		case reStore.MatchString(s):
			m = reStore.FindStringSubmatch(s)
			v, _ := field(m[1])
			stored[m[2]] = v
		case reStored.MatchString(s):
			m = reStored.FindStringSubmatch(s)
			v, _ := field(m[1])
			if (str(v) == str(stored[m[3]])) == (m[2] != "") {
				return fmt.Sprintf("%s: got %s, stored %s", s, str(v), str(stored[m[3]])), auditSteps
			}
		default:
			return "step not interpreted: " + s, auditSteps
		}
	}
	return "", auditSteps
}

// dekBDDFailures are the scenarios of dek_registry.feature that Charter
// fails, each with why: every one is a place where the AxonOps registry
// answers otherwise than Confluent's dek-registry sources
// (DekRegistryErrors.java, AbstractDekRegistry, DekRegistryResource,
// VersionId), which Charter follows.
var dekBDDFailures = map[string]string{
	"Create duplicate KEK returns conflict":                                        "AxonOps answers 40970; Confluent's DekRegistryErrors.java has 40971 KEY_ALREADY_EXISTS for KEKs and DEKs alike",
	"Create DEK with same subject creates new version":                             "AxonOps makes version 2; Confluent's createDek stores the request's version (1 when absent) and answers 40971 when it exists",
	"Get non-existent DEK returns 404":                                             "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"DEK versioning with multiple versions":                                        "AxonOps numbers versions across algorithms; in Confluent (getDekVersions) a DEK's versions are per algorithm, AES256_GCM when none is asked",
	"Full lifecycle - create KEK, create DEKs, soft-delete, undelete, hard-delete": "AxonOps soft-deletes a KEK with live DEKs; Confluent's deleteKek answers 42272 (RestApiTest.testBasic)",
	"Delete DEK for non-existent KEK returns 404":                                  "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"DEK creation under soft-deleted KEK still succeeds":                           "Confluent's createDekWithSubject looks the KEK up with the request's deleted flag: a soft-deleted KEK is 40470",
	"Get DEK version 0 returns 422 invalid version":                                "AxonOps' own message (\"positive integer\"); Charter answers 42202 with Confluent's VersionId message, as on /subjects",
	"Get DEK negative version returns 422 invalid version":                         "-1 is the latest version in Confluent's VersionId (Charter answers it as on /subjects)",
	"Get DEK non-numeric version returns 422 invalid version":                      "AxonOps' own message (\"positive integer\"); Charter answers 42202 with Confluent's VersionId message, as on /subjects",
	"Get DEK version -999 returns 422 invalid version":                             "AxonOps' own message (\"positive integer\"); Charter answers 42202 with Confluent's VersionId message, as on /subjects",
	"Create DEK with subject in path and empty body":                               "AxonOps generates key material; Confluent's createDek answers 42271 (encryptedKeyMaterial) for a non-shared KEK, and Charter has no KMS to generate one for a shared KEK",
	"Rewrap DEK for non-existent KEK returns 422 without KMS":                      "Confluent looks the KEK up first: 40470 (404)",
	"Delete DEK version for non-existent KEK returns 404":                          "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"Delete DEK version that does not exist returns 404":                           "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"Undelete DEK version for non-existent KEK returns 404":                        "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"Undelete DEK version that does not exist returns 404":                         "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"Delete DEK version with invalid version returns 422":                          "AxonOps' own message (\"positive integer\"); Charter answers 42202 with Confluent's VersionId message, as on /subjects",
	"Undelete DEK version with invalid version returns 422":                        "AxonOps' own message (\"positive integer\"); Charter answers 42202 with Confluent's VersionId message, as on /subjects",
	"Permanent delete DEK without soft-delete first":                               "AxonOps deletes it; Confluent's deleteDek answers 40471 KEY_NOT_SOFT_DELETED",
	"Get DEK with wrong algorithm returns 404":                                     "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"Soft-deleted DEK not visible in default get":                                  "AxonOps answers 40471 for an unknown key; Confluent's DekRegistryErrors.java has 40470 KEY_NOT_FOUND for KEKs and DEKs alike (40471 is KEY_NOT_SOFT_DELETED)",
	"List DEK versions with offset and limit":                                      "as \"DEK versioning with multiple versions\": versions are per algorithm in Confluent",
}

// TestAxonOpsDekRegistry runs dek_registry.feature: every scenario passes
// but those dekBDDFailures lists with their reasons.
func TestAxonOpsDekRegistry(t *testing.T) {
	scs := parseFeature(t, bddFeature(t, "dek_registry.feature"))
	passed, audit := 0, 0
	for _, sc := range scs {
		fail, n := bddRun(t, sc)
		audit += n
		reason, pinned := dekBDDFailures[sc.name]
		switch {
		case fail == "":
			passed++
			if pinned {
				t.Errorf("%q passes now; drop it from dekBDDFailures (%s)", sc.name, reason)
			}
		case !pinned:
			t.Errorf("%q: %s", sc.name, fail)
		default:
			t.Logf("%q fails as pinned (%s): %s", sc.name, reason, fail)
		}
	}
	t.Logf("dek_registry.feature: %d of %d scenarios pass (%d audit-log steps in AxonOps' own event format counted, not checked)", passed, len(scs), audit)
}
