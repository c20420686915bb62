package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/api"
)

// TestGovernanceBodiesAreValidated: nonsense governance requests (too
// many or malformed tags, extension lengths beyond ten years, version
// ranges that select nothing, producer versions the subject does not
// have, dismissals of fields no version has or of unknown patterns, text
// that is not UTF-8) each answer one clear 422 naming the member or value,
// and store nothing; the sane neighbour of each is accepted.
func TestGovernanceBodiesAreValidated(t *testing.T) {
	e := newEnv(t, func(o *api.Options) { o.MaxBodyBytes = api.DefaultMaxBodyBytes })
	e.mustDo("POST", "/subjects/gov/versions", schemaBody(recA))
	e.mustDo("POST", "/governance/subjects/gov/deprecations", `{"path":".a","reason":"r"}`)
	e.mustDo("PUT", "/governance/subjects/gov/owner", `{"team":"t","contact":"#t"}`)
	state := func() string {
		var b strings.Builder
		for _, p := range []string{"/governance/subjects/gov/tags", "/governance/subjects/gov/deprecations", "/governance/subjects/gov/dismissals",
			"/governance/lineage/changes?subject=gov", "/governance/subjects/gov/owner", "/subjects/gov/versions"} {
			_, _, body := e.do("GET", p, "")
			b.WriteString(p + " " + body + "\n")
		}
		return b.String()
	}
	tags := func(n int, tag func(i int) string) string {
		ts := make([]string, n)
		for i := range ts {
			ts[i] = tag(i)
		}
		b, _ := json.Marshal(map[string]any{"tags": map[string]any{".a": ts}})
		return string(b)
	}
	globs := func(n int) string {
		m := map[string][]string{}
		for i := range n {
			m[fmt.Sprintf(".g%d", i)] = []string{"PII"}
		}
		b, _ := json.Marshal(map[string]any{"tags": m})
		return string(b)
	}
	const (
		ext      = "/governance/subjects/gov/deprecations/.a/extensions"
		consumer = "/governance/subjects/gov/consumers/svc"
		producer = "/governance/subjects/gov/producers/svc"
		dismiss  = "/governance/subjects/gov/dismissals"
		tagsPath = "/governance/subjects/gov/tags"
	)
	tests := []struct {
		name, method, path, body string
		code                     int // 0: 200
		msg                      string
	}{
		{"100k tags for one field", "PUT", tagsPath, tags(100_000, func(i int) string { return fmt.Sprint("t", i) }), 42283, `glob ".a" has 100000 tags, more than 100`},
		{"101 tags", "PUT", tagsPath, tags(101, func(i int) string { return fmt.Sprint("t", i) }), 42283, "has 101 tags, more than 100"},
		{"257 globs", "PUT", tagsPath, globs(257), 42283, "257 path globs, more than 256"},
		{"a tag of 257 bytes", "PUT", tagsPath, tags(1, func(int) string { return strings.Repeat("x", 257) }), 42283, "is longer than 256 bytes"},
		{"a tag with a control character", "PUT", tagsPath, tags(1, func(int) string { return "PI\u0007I" }), 42283, "has a control character"},
		{"an empty tag", "PUT", tagsPath, tags(1, func(int) string { return " " }), 42283, `a tag of glob ".a" is empty`},
		{"an empty glob", "PUT", tagsPath, `{"tags":{" ":["PII"]}}`, 42283, "a path glob is empty"},
		{"100 tags, repeated", "PUT", tagsPath, tags(100, func(i int) string { return fmt.Sprint("t", i%7) }), 0, `".a":["t0","t1","t2","t3","t4","t5","t6"]`},
		{"256 globs", "PUT", tagsPath, globs(256), 0, `".g255":["PII"]`},

		{"extension of 213600 days", "POST", ext, `{"consumer":"c","days":213600,"reason":"r","approver":"a"}`, 42283, "days 213600 is out of range: want 1 to 3650"},
		{"extension of 3651 days", "POST", ext, `{"consumer":"c","days":3651,"reason":"r","approver":"a"}`, 42283, "days 3651 is out of range"},
		{"extension of -1 days", "POST", ext, `{"consumer":"c","days":-1,"reason":"r","approver":"a"}`, 42283, "days -1 is out of range"},
		{"extension beyond int64", "POST", ext, `{"consumer":"c","days":99999999999999999999,"reason":"r","approver":"a"}`, 422, `Cannot read field "days"`},
		{"extension until 20 years away", "POST", ext, `{"consumer":"c","until":"` + time.Now().AddDate(20, 0, 0).UTC().Format(time.RFC3339) + `","reason":"r","approver":"a"}`, 42283, "more than 3650 days away"},

		{"range to before from", "PUT", consumer, `{"fields":[".a"],"range":{"from":5,"to":1}}`, 42283, "range.to 1 is before range.from 5"},
		{"negative range.from", "PUT", consumer, `{"fields":[".a"],"range":{"from":-1}}`, 42283, "range.from -1 is not a version"},
		{"negative range.to", "PUT", consumer, `{"fields":[".a"],"range":{"from":1,"to":-2}}`, 42283, "range.to -2 is not a version"},
		{"range.from past 2^31-1", "PUT", consumer, `{"fields":[".a"],"range":{"from":2147483648}}`, 42283, "range.from 2147483648 is not a version"},
		{"one-version range", "PUT", consumer, `{"fields":[".a"],"range":{"from":1,"to":1}}`, 0, `"range":{"from":1,"to":1}`},

		{"negative producer version", "PUT", producer, `{"versions":[-3]}`, 42283, "versions[0]: -3 is not a version"},
		{"producer version 0", "PUT", producer, `{"versions":[1,0]}`, 42283, "versions[1]: 0 is not a version"},
		{"producer version the subject lacks", "PUT", producer, `{"versions":[2]}`, 42283, "the subject has no version 2"},
		{"producer of version 1", "PUT", producer, `{"versions":[1]}`, 0, `"versions":[1]`},

		{"dismissal of a field no version has", "POST", dismiss, `{"field":".nope","reason":"r"}`, 42283, `no version of subject 'gov' has a field ".nope"`},
		{"dismissal of an unknown pattern", "POST", dismiss, `{"field":".a","patternId":"PII_NOPE","reason":"r"}`, 42283, `unknown patternId "PII_NOPE"`},
		{"dismissal on a subject without versions", "POST", "/governance/subjects/none/dismissals", `{"field":".a","reason":"r"}`, 40401, "Subject 'none' not found"},
		{"dismissal of a field path", "POST", dismiss, `{"field":".a","patternId":"PII_EMAIL","reason":"r"}`, 0, `"field":".a"`},
		{"dismissal of a full name", "POST", dismiss, `{"field":"A.a","reason":"r"}`, 0, `"field":"A.a"`},
		{"dismissal of a proposed field", "POST", dismiss, `{"field":".b","reason":"r","proposed":true}`, 0, `"field":".b"`},

		{"invalid UTF-8 in a doc", "POST", "/subjects/gov/versions", "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"A\\\",\\\"doc\\\":\\\"a\xffb\\\",\\\"fields\\\":[]}\"}", 42201,
			`not UTF-8: byte 0xFF at offset 58 in member "schema"`},
		{"invalid UTF-8 in a description", "PUT", "/governance/subjects/gov/owner", "{\"team\":\"t\",\"contact\":\"#t\",\"description\":\"d\xc3\"}", 422,
			`not UTF-8: byte 0xC3 at offset 43 in member "description"`},
		{"invalid UTF-8 in a tag", "PUT", tagsPath, "{\"tags\":{\".a\":[\"P\xe2\x82\"]}}", 422, `in member "tags..a"`},
		{"invalid UTF-8 in a glob", "PUT", tagsPath, "{\"tags\":{\".\xf0\":[\"PII\"]}}", 422, `in member "tags" (in a key)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := state()
			e.log.Reset()
			status, _, body := e.do(tc.method, tc.path, tc.body)
			if tc.code == 0 {
				if status != 200 || !strings.Contains(body, tc.msg) {
					t.Fatalf("status %d, body %.300s; want 200 with %s", status, body, tc.msg)
				}
				return
			}
			var eb struct {
				ErrorCode int    `json:"error_code"`
				Message   string `json:"message"`
			}
			if err := json.Unmarshal([]byte(body), &eb); err != nil || status >= 500 || status < 400 {
				t.Fatalf("status %d, body %.300s: want a Confluent error body", status, body)
			}
			if eb.ErrorCode != tc.code || !strings.Contains(eb.Message, tc.msg) || strings.Contains(eb.Message, "\n") {
				t.Errorf("error %d %q; want %d, one line containing %q", eb.ErrorCode, eb.Message, tc.code, tc.msg)
			}
			if after := state(); after != before {
				t.Errorf("a refused request changed the state:\nbefore %s\nafter  %s", before, after)
			}
			if strings.Contains(e.log.String(), "level=ERROR") {
				t.Errorf("a refused request logged an error: %s", e.log.String())
			}
		})
	}
}

// TestExtensionEnd: an extension of n days ends n calendar days after it
// is granted, up to ten years (the end was computed in nanoseconds and
// overflowed past 106,751 days, so 213,600 days ended weeks away).
func TestExtensionEnd(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/gov/versions", schemaBody(recA))
	e.mustDo("POST", "/governance/subjects/gov/deprecations", `{"path":".a","reason":"r"}`)
	for _, days := range []int{1, 366, 3650} {
		body := e.mustDo("POST", "/governance/subjects/gov/deprecations/.a/extensions",
			fmt.Sprintf(`{"consumer":"c%d","days":%d,"reason":"r","approver":"a"}`, days, days))
		var st struct {
			Extensions []struct {
				Consumer  string    `json:"consumer"`
				Until     time.Time `json:"until"`
				GrantedAt time.Time `json:"grantedAt"`
			} `json:"extensions"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatal(err)
		}
		for _, x := range st.Extensions {
			if x.Consumer != fmt.Sprint("c", days) {
				continue
			}
			if want := x.GrantedAt.AddDate(0, 0, days); !x.Until.Equal(want) {
				t.Errorf("%d days: until %s, want %s", days, x.Until, want)
			}
		}
	}
}
