package storetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
)

// Pre-context fixture schemas: plain's P (ID 1, shared with :.foo:bar
// v1), :.foo:baz's B (ID 2), :.foo:bar v2's R (ID 3, referencing plain 1
// and :.foo:baz 1), other's O (ID 4).
const (
	upgradeP = `{"type":"record","name":"P","fields":[{"name":"a","type":"int"}]}`
	upgradeB = `{"type":"record","name":"B","fields":[{"name":"b","type":"string"}]}`
	upgradeR = `{"type":"record","name":"R","fields":[{"name":"p","type":"P"},{"name":"b","type":"B"}]}`
	upgradeO = `{"type":"record","name":"O","fields":[{"name":"o","type":"long"}]}`
)

var upgradeRRefs = []registry.Reference{{Name: "P", Subject: "plain", Version: 1}, {Name: "B", Subject: ":.foo:baz", Version: 1}}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func upgradeFingerprint(text string, refs []registry.Reference) string {
	return registry.Fingerprint(compat.SchemaType("AVRO"), text, refs, nil, nil)
}

// PreContextUpgradeRows returns the INSERT statements (portable SQL, with
// the given spelling of a boolean false) that fill a registry written
// before contexts, as Charter before 0006 (SQLite) / 0004 (PostgreSQL)
// stored it: subjects plain, :.foo:bar, :.foo:baz and other, all in the
// one global ID space, the schema mark at 4, :.foo:bar's config NONE.
// CheckPreContextUpgrade checks the store once migrated.
func PreContextUpgradeRows(falseValue string) []string {
	refs, _ := json.Marshal(upgradeRRefs)
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return []string{
		fmt.Sprintf(`INSERT INTO schemas (id, type, text, fingerprint) VALUES (1, 'AVRO', %s, %s), (2, 'AVRO', %s, %s), (4, 'AVRO', %s, %s)`,
			q(upgradeP), q(upgradeFingerprint(upgradeP, nil)), q(upgradeB), q(upgradeFingerprint(upgradeB, nil)), q(upgradeO), q(upgradeFingerprint(upgradeO, nil))),
		fmt.Sprintf(`INSERT INTO schemas (id, type, text, refs, fingerprint) VALUES (3, 'AVRO', %s, %s, %s)`,
			q(upgradeR), q(string(refs)), q(upgradeFingerprint(upgradeR, upgradeRRefs))),
		`INSERT INTO schema_references (schema_id, position, name, subject, version) VALUES (3, 0, 'P', 'plain', 1), (3, 1, 'B', ':.foo:baz', 1)`,
		fmt.Sprintf(`INSERT INTO subject_versions (subject, version, schema_id, deleted) VALUES
			('plain', 1, 1, %[1]s), (':.foo:bar', 1, 1, %[1]s), (':.foo:baz', 1, 2, %[1]s), (':.foo:bar', 2, 3, %[1]s), ('other', 1, 4, %[1]s)`, falseValue),
		`UPDATE schema_id_mark SET max_id = 4`,
		`INSERT INTO configs (subject, body) VALUES (':.foo:bar', '{"compatibilityLevel":"NONE"}')`,
	}
}

// CheckPreContextUpgrade checks a store holding PreContextUpgradeRows
// after its migrations, through the API: each :.foo: subject's versions
// are read in .foo with their IDs, references re-pointed (plain's as
// :.:plain, the default context's), the default context still resolves
// every ID, GET /contexts lists .foo, referencedby, the export carries
// .foo's schemas and mark, and a new .foo schema takes ID 4 (above the
// copied ones).
func CheckPreContextUpgrade(t *testing.T, store registry.Store) {
	t.Helper()
	svc := registry.NewService(store, []compat.Format{avro.Format{}})
	srv := httptest.NewServer(api.New(svc, api.Options{MaxBodyBytes: 1 << 20, Version: "v-test"}))
	defer srv.Close()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	type version struct {
		Subject    string               `json:"subject"`
		Version    int                  `json:"version"`
		ID         int64                `json:"id"`
		Schema     string               `json:"schema"`
		References []registry.Reference `json:"references"`
	}
	get := func(path string, into any) {
		t.Helper()
		code, body := do("GET", path, "")
		if code != http.StatusOK {
			t.Errorf("GET %s = %d %s; want 200", path, code, body)
			return
		}
		if err := json.Unmarshal([]byte(body), into); err != nil {
			t.Errorf("GET %s: %v in %s", path, err, body)
		}
	}
	wantVersions := []version{
		{Subject: ":.foo:bar", Version: 1, ID: 1, Schema: upgradeP},
		{Subject: ":.foo:bar", Version: 2, ID: 3, Schema: upgradeR, References: []registry.Reference{
			{Name: "P", Subject: ":.:plain", Version: 1}, {Name: "B", Subject: ":.foo:baz", Version: 1}}},
		{Subject: ":.foo:baz", Version: 1, ID: 2, Schema: upgradeB},
		{Subject: "plain", Version: 1, ID: 1, Schema: upgradeP},
		{Subject: "other", Version: 1, ID: 4, Schema: upgradeO},
	}
	for _, w := range wantVersions {
		var got version
		get(fmt.Sprintf("/subjects/%s/versions/%d", w.Subject, w.Version), &got)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s version %d = %+v; want %+v", w.Subject, w.Version, got, w)
		}
	}
	var latest version
	get("/contexts/.foo/subjects/bar/versions/latest", &latest)
	if latest.ID != 3 || latest.Version != 2 {
		t.Errorf("/contexts/.foo/subjects/bar/versions/latest = %+v; want version 2, ID 3", latest)
	}
	// Every ID still resolves in the default context; .foo's in .foo.
	for id, text := range map[int64]string{1: upgradeP, 2: upgradeB, 3: upgradeR, 4: upgradeO} {
		var got struct {
			Schema string `json:"schema"`
		}
		get(fmt.Sprintf("/schemas/ids/%d", id), &got)
		if got.Schema != text {
			t.Errorf("/schemas/ids/%d = %q; want %q", id, got.Schema, text)
		}
	}
	for id, text := range map[int64]string{1: upgradeP, 2: upgradeB, 3: upgradeR} {
		var got struct {
			Schema string `json:"schema"`
		}
		get(fmt.Sprintf("/contexts/.foo/schemas/ids/%d", id), &got)
		if got.Schema != text {
			t.Errorf("/contexts/.foo/schemas/ids/%d = %q; want %q", id, got.Schema, text)
		}
	}
	if code, body := do("GET", "/contexts/.foo/schemas/ids/4", ""); code != http.StatusNotFound {
		t.Errorf("/schemas/ids/4 in .foo = %d %s; want 404 (other's schema is not in .foo)", code, body)
	}
	var contexts []string
	get("/contexts", &contexts)
	if !reflect.DeepEqual(contexts, []string{".", ".foo"}) {
		t.Errorf("GET /contexts = %q; want [. .foo]", contexts)
	}
	var subjects []string
	get("/contexts/.foo/subjects", &subjects)
	if !reflect.DeepEqual(subjects, []string{":.foo:bar", ":.foo:baz"}) {
		t.Errorf("GET /contexts/.foo/subjects = %q; want [:.foo:bar :.foo:baz]", subjects)
	}
	for path, want := range map[string][]int64{
		"/subjects/:.foo:baz/versions/1/referencedby": {3},
		"/subjects/plain/versions/1/referencedby":     {3},
	} {
		var got []int64
		get(path, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s = %v; want %v", path, got, want)
		}
	}
	var cfg struct {
		Compatibility string `json:"compatibilityLevel"`
	}
	get("/config/:.foo:bar", &cfg)
	if cfg.Compatibility != "NONE" {
		t.Errorf("GET /config/:.foo:bar = %+v; want NONE", cfg)
	}

	d, err := svc.Export(t.Context())
	if err != nil {
		t.Fatalf("Export after the upgrade: %v", err)
	}
	type key struct {
		Context string
		ID      int64
	}
	var keys []key
	for _, s := range d.Schemas {
		keys = append(keys, key{s.Context, s.ID})
	}
	wantKeys := []key{{"", 1}, {"", 2}, {"", 3}, {"", 4}, {".foo", 1}, {".foo", 2}, {".foo", 3}}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("exported schemas = %v; want %v", keys, wantKeys)
	}
	if len(d.Contexts) != 1 || d.Contexts[0].Context != ".foo" || d.Contexts[0].MaxSchemaID != 3 {
		t.Errorf("exported contexts = %+v; want .foo with mark 3", d.Contexts)
	}
	if d.MaxSchemaID != 4 {
		t.Errorf("exported default mark = %d; want 4", d.MaxSchemaID)
	}

	// The copy of R is identified in .foo as a registration there
	// computes it (with :.:plain): registered again under another .foo
	// subject, and looked up, it is ID 3.
	rAgain := `{"schema":` + strconvQuote(upgradeR) + `,"references":[{"name":"P","subject":":.:plain","version":1},{"name":"B","subject":":.foo:baz","version":1}]}`
	if code, resp := do("POST", "/subjects/:.foo:again/versions", rAgain); code != http.StatusOK || !strings.Contains(resp, `"id":3`) {
		t.Errorf("R registered again in .foo = %d %s; want ID 3 (the copy's)", code, resp)
	}
	if code, resp := do("POST", "/subjects/:.foo:bar", rAgain); code != http.StatusOK || !strings.Contains(resp, `"id":3`) || !strings.Contains(resp, `"version":2`) {
		t.Errorf("lookup of R in :.foo:bar = %d %s; want version 2, ID 3", code, resp)
	}

	// A new .foo schema, referencing the default context's plain, goes
	// above the copied IDs; the default context's allocation is unchanged.
	body := `{"schema":"{\"type\":\"record\",\"name\":\"R2\",\"fields\":[{\"name\":\"p\",\"type\":\"P\"}]}","references":[{"name":"P","subject":":.:plain","version":1}]}`
	code, resp := do("POST", "/subjects/:.foo:bar/versions", body)
	if code != http.StatusOK || !strings.Contains(resp, `"id":4`) {
		t.Errorf("register in .foo after the upgrade = %d %s; want ID 4", code, resp)
	}
	code, resp = do("POST", "/subjects/fresh/versions", `{"schema":"\"string\""}`)
	if code != http.StatusOK || !strings.Contains(resp, `"id":5`) {
		t.Errorf("register in the default context after the upgrade = %d %s; want ID 5", code, resp)
	}
}

// Pre-context fixture of subjects whose names registry.NormalizeSubject
// changes: ":.foo" (ID 1) beside ":.foo:" (ID 2), ":.:x" (ID 3) beside
// "x" (ID 4), ":.:y" (ID 5, "y" free), ":.bar" (ID 6, ":.bar:" free),
// ":.:" (ID 7, normal form empty), ":.:n" (ID 8, record N) referenced by
// "m" (ID 9); configs on ":.foo" and ":.:x".
const (
	collisionN = `{"type":"record","name":"N","fields":[{"name":"a","type":"int"}]}`
	collisionM = `{"type":"record","name":"M","fields":[{"name":"n","type":"N"}]}`
)

var collisionMRefs = []registry.Reference{{Name: "N", Subject: ":.:n", Version: 1}}

// collisionVersions are the fixture's versions as the upgrade names them.
var collisionVersions = []struct {
	Stored, Subject string
	ID              int64
	Schema          string
}{
	{":.foo", ":.foo:~renamed-1", 1, `"int"`},
	{":.foo:", ":.foo:", 2, `"long"`},
	{":.:x", "x~renamed-1", 3, `"float"`},
	{"x", "x", 4, `"double"`},
	{":.:y", "y", 5, `"string"`},
	{":.bar", ":.bar:", 6, `"bytes"`},
	{":.:", "~renamed-1", 7, `"boolean"`},
	{":.:n", "n", 8, collisionN},
	{"m", "m", 9, collisionM},
}

// PreContextCollisionRows returns the INSERT statements, as
// PreContextUpgradeRows, of a registry written before contexts holding
// subjects that the API, which normalises every subject, would not reach
// as they are stored. CheckPreContextCollisions checks the store once
// migrated.
func PreContextCollisionRows(falseValue string) []string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var schemas, versions []string
	for _, v := range collisionVersions {
		var refs []registry.Reference
		refsSQL := "NULL"
		if v.Stored == "m" {
			refs = collisionMRefs
			b, _ := json.Marshal(refs)
			refsSQL = q(string(b))
		}
		schemas = append(schemas, fmt.Sprintf("(%d, 'AVRO', %s, %s, %s)", v.ID, q(v.Schema), refsSQL, q(upgradeFingerprint(v.Schema, refs))))
		versions = append(versions, fmt.Sprintf("(%s, 1, %d, %s)", q(v.Stored), v.ID, falseValue))
	}
	return []string{
		`INSERT INTO schemas (id, type, text, refs, fingerprint) VALUES ` + strings.Join(schemas, ", "),
		`INSERT INTO schema_references (schema_id, position, name, subject, version) VALUES (9, 0, 'N', ':.:n', 1)`,
		`INSERT INTO subject_versions (subject, version, schema_id, deleted) VALUES ` + strings.Join(versions, ", "),
		`UPDATE schema_id_mark SET max_id = 9`,
		`INSERT INTO configs (subject, body) VALUES (':.foo', '{"compatibilityLevel":"NONE"}'), (':.:x', '{"compatibilityLevel":"FORWARD"}')`,
	}
}

// CheckPreContextCollisions checks a store holding PreContextCollisionRows
// after its migrations, through the API: every version is read under its
// renamed subject (the normal form when it was free, else "~renamed-N"
// beside it) with its ID and schema, GET /subjects lists every renamed
// subject and none of the old names, configs and references follow the
// rename, and the export holds every version.
func CheckPreContextCollisions(t *testing.T, store registry.Store) {
	t.Helper()
	svc := registry.NewService(store, []compat.Format{avro.Format{}})
	srv := httptest.NewServer(api.New(svc, api.Options{MaxBodyBytes: 1 << 20, Version: "v-test"}))
	defer srv.Close()
	get := func(path string, into any) bool {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d %s; want 200", path, resp.StatusCode, b)
			return false
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Errorf("GET %s: %v in %s", path, err, b)
			return false
		}
		return true
	}
	for _, w := range collisionVersions {
		var got struct {
			Subject    string               `json:"subject"`
			ID         int64                `json:"id"`
			Schema     string               `json:"schema"`
			References []registry.Reference `json:"references"`
		}
		if !get("/subjects/"+w.Subject+"/versions/1", &got) {
			continue
		}
		if got.Subject != w.Subject || got.ID != w.ID || got.Schema != w.Schema {
			t.Errorf("%s (stored %s) version 1 = %+v; want ID %d, %s", w.Subject, w.Stored, got, w.ID, w.Schema)
		}
		if w.Subject == "m" && !reflect.DeepEqual(got.References, []registry.Reference{{Name: "N", Subject: "n", Version: 1}}) {
			t.Errorf("m's references = %+v; want N of n 1 (stored :.:n)", got.References)
		}
	}
	var subjects []string
	get("/subjects", &subjects)
	listed := map[string]bool{}
	for _, s := range subjects {
		listed[s] = true
	}
	for _, w := range collisionVersions {
		if !listed[w.Subject] {
			t.Errorf("GET /subjects = %q; want %s listed (stored %s)", subjects, w.Subject, w.Stored)
		}
		if w.Stored != w.Subject && listed[w.Stored] {
			t.Errorf("GET /subjects = %q; lists %s, which the API does not reach", subjects, w.Stored)
		}
	}
	for subject, want := range map[string]string{":.foo:~renamed-1": "NONE", "x~renamed-1": "FORWARD"} {
		var cfg struct {
			Compatibility string `json:"compatibilityLevel"`
		}
		if get("/config/"+subject, &cfg) && cfg.Compatibility != want {
			t.Errorf("GET /config/%s = %+v; want %s", subject, cfg, want)
		}
	}
	var refBy []int64
	if get("/subjects/n/versions/1/referencedby", &refBy) && !reflect.DeepEqual(refBy, []int64{9}) {
		t.Errorf("GET /subjects/n/versions/1/referencedby = %v; want [9]", refBy)
	}
	// Registered again as a client now names it, M is the same ID.
	body := `{"schema":` + strconvQuote(collisionM) + `,"references":[{"name":"N","subject":"n","version":1}]}`
	resp, err := http.Post(srv.URL+"/subjects/m", "application/vnd.schemaregistry.v1+json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"id":9`) {
		t.Errorf("lookup of M in m = %d %s; want ID 9", resp.StatusCode, b)
	}

	d, err := svc.Export(t.Context())
	if err != nil {
		t.Fatalf("Export after the upgrade: %v", err)
	}
	exported := map[string]int64{}
	for _, s := range d.Subjects {
		for _, v := range s.Versions {
			if v.Version == 1 {
				exported[s.Subject] = v.ID
			}
		}
	}
	for _, w := range collisionVersions {
		if exported[w.Subject] != w.ID {
			t.Errorf("exported %s version 1 = ID %d; want %d (export %v)", w.Subject, exported[w.Subject], w.ID, exported)
		}
	}
}
