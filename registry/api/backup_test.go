package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/dump"
)

// TestAdminExportImport: GET /admin/export answers the whole registry as
// a v3 dump; POST /admin/import restores it into an empty registry (its
// body may be larger than the request limit), audited under the
// authenticated admin; a non-empty registry answers 409 40980 unless
// ?merge=true; ?dryRun=true writes nothing; a dump that cannot be read is
// 422 42284; owners may do neither. Both answers match openapi.json.
func TestAdminExportImport(t *testing.T) {
	src := newAuthEnv(t, "")
	root, alice := src.principal("root"), src.principal("alice")
	if status, body := src.as(root, http.MethodPost, "/subjects/owned/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, body := src.as(root, http.MethodPut, "/governance/subjects/owned/owner", `{"team":"logistics","contact":"#l"}`); status != http.StatusOK {
		t.Fatalf("owner: %d %s", status, body)
	}
	status, exported := src.as(root, http.MethodGet, "/admin/export", "")
	if status != http.StatusOK {
		t.Fatalf("export: %d %s", status, exported)
	}
	o := loadOAS(t)
	o.validate(t, "GET /admin/export", "#/components/schemas/Dump", []byte(exported))
	d, err := dump.Read([]byte(exported))
	if err != nil {
		t.Fatalf("the export does not read: %v\n%s", err, exported)
	}
	if n := d.Counts(); n.Schemas != 1 || n.Versions != 1 || n.Records == 0 || n.Audit == 0 {
		t.Errorf("export counts %+v", n)
	}
	for _, p := range []string{"GET /admin/export", "POST /admin/import"} {
		method, path, _ := strings.Cut(p, " ")
		if status, body := src.as(alice, method, path, exported); status != http.StatusForbidden {
			t.Errorf("%s as an owner: %d %s, want 403", p, status, body)
		}
	}

	// A dump above the request body limit (256 KiB here) still imports.
	d.Records = append(d.Records, dump.Record{Kind: "note", Subject: "owned", Body: json.RawMessage(`"` + strings.Repeat("x", 300<<10) + `"`)})
	big, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	dst := newAuthEnv(t, "")
	droot := dst.principal("root")
	status, body := dst.as(droot, http.MethodPost, "/admin/import?dryRun=true", string(big))
	var rep registry.ImportReport
	if err := json.Unmarshal([]byte(body), &rep); status != http.StatusOK || err != nil || !rep.DryRun || rep.Refusal != "" || rep.Added.Schemas != 1 {
		t.Fatalf("dry run: %d %s", status, body)
	}
	if status, body := dst.as(droot, http.MethodGet, "/subjects", ""); body != "[]" {
		t.Fatalf("after a dry run: %d %s", status, body)
	}
	status, body = dst.as(droot, http.MethodPost, "/admin/import", string(big))
	o.validate(t, "POST /admin/import", "#/components/schemas/ImportReport", []byte(body))
	if err := json.Unmarshal([]byte(body), &rep); status != http.StatusOK || err != nil || rep.AuditID == 0 || rep.Added.Records != d.Counts().Records {
		t.Fatalf("import: %d %s", status, body)
	}
	if status, body := dst.as(droot, http.MethodGet, "/governance/subjects/owned/owner", ""); status != http.StatusOK || !strings.Contains(body, `"updatedBy":"root"`) {
		t.Errorf("restored owner: %d %s", status, body)
	}
	if status, body := dst.as(droot, http.MethodGet, "/governance/audit?action=registry.import", ""); status != http.StatusOK ||
		!strings.Contains(body, `"actor":"root"`) || strings.Contains(body, "mallory") {
		t.Errorf("the import's audit entry: %d %s", status, body)
	}

	status, body = dst.as(droot, http.MethodPost, "/admin/import", exported)
	if status != http.StatusConflict || !strings.Contains(body, `"error_code":40980`) || !strings.Contains(body, "the registry is not empty") {
		t.Errorf("import into a non-empty registry: %d %s", status, body)
	}
	status, body = dst.as(droot, http.MethodPost, "/admin/import?merge=true", exported)
	if err := json.Unmarshal([]byte(body), &rep); status != http.StatusOK || err != nil || rep.Added.Schemas != 0 || rep.Kept.Schemas != 1 {
		t.Errorf("merge of the same dump: %d %s", status, body)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"format":"charter-registry-dump/v9"}`, "written by a newer Charter"},
		{`{"schemas":[]}`, `no \"format\" member`},
		{`not json`, "Invalid dump"},
	} {
		status, body := dst.as(droot, http.MethodPost, "/admin/import", tc.body)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, `"error_code":42284`) || !strings.Contains(body, tc.want) {
			t.Errorf("import of %s: %d %s, want 422 42284 saying %q", tc.body, status, body, tc.want)
		}
	}
}

// isAdminOp reports an operation of the document's admin tag, which
// TestAdminExportImport calls.
func isAdminOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	for _, t := range tags {
		if t == "admin" {
			return true
		}
	}
	return false
}
