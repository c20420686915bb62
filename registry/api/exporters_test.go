package api_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/exporter"
	"github.com/charter-dev/charter/registry/sqlite"
)

// These tests follow Confluent's exporter REST API (docs.confluent.io,
// "Schema Linking on Confluent Platform", section "Exporters API": GET
// and POST /exporters, GET and PUT /exporters/{name}, GET and PUT
// .../config, GET .../status, PUT .../pause, .../resume, .../reset,
// DELETE /exporters/{name}) and its error codes (40450, 40950-40952,
// 40960-40962, 40964). The API has no runner in these tests, so a
// created exporter stays STARTING.

const exporters = "/exporters"

// TestExportersLifecycle: create with Confluent's defaults, list, get,
// status, pause (twice), resume (40962 while STARTING), reset, delete;
// 40960 for a taken name and 40450 on every route for an unknown one.
func TestExportersLifecycle(t *testing.T) {
	e := newEnv(t)
	if got := e.keyCall("GET", exporters, "", 200, 0); got != "[]" {
		t.Errorf("GET /exporters on an empty registry = %s, want []", got)
	}
	if got := e.keyCall("POST", exporters, `{"name":"minimal","config":{"schema.registry.url":"http://dest:8081"}}`, 200, 0); got != `{"name":"minimal"}` {
		t.Errorf("create = %s, want {\"name\":\"minimal\"}", got)
	}
	got := e.keyCall("GET", exporters+"/minimal", "", 200, 0)
	want := `{"name":"minimal","contextType":"AUTO","context":"","subjects":["*"],"subjectRenameFormat":"${subject}","config":{"schema.registry.url":"http://dest:8081"}}`
	if got != want {
		t.Errorf("GET /exporters/minimal = %s, want %s", got, want)
	}
	e.keyCall("POST", exporters, `{"name":"minimal","contextType":"NONE","config":{"schema.registry.url":"http://dest:8081"}}`, 409, 40960)
	e.keyCall("POST", exporters, `{"name":"b-exp","contextType":"CUSTOM","context":"prod","subjects":["orders-*"],"subjectRenameFormat":"dc_${subject}","kekRenameFormat":"x","config":{"schema.registry.url":"http://dest:8081"}}`, 200, 0)
	if got := e.keyCall("GET", exporters, "", 200, 0); got != `["b-exp","minimal"]` {
		t.Errorf("GET /exporters = %s, want [\"b-exp\",\"minimal\"]", got)
	}
	status := e.keyCall("GET", exporters+"/minimal/status", "", 200, 0)
	if !strings.HasPrefix(status, `{"name":"minimal","state":"STARTING","offset":0,"ts":`) || strings.Contains(status, "trace") {
		t.Errorf("status = %s, want STARTING at offset 0 without a trace", status)
	}
	e.keyCall("PUT", exporters+"/minimal/resume", "{}", 409, 40962)
	for range 2 {
		if got := e.keyCall("PUT", exporters+"/minimal/pause", "{}", 200, 0); got != `{"name":"minimal"}` {
			t.Errorf("pause = %s", got)
		}
		if st := e.keyCall("GET", exporters+"/minimal/status", "", 200, 0); !strings.Contains(st, `"state":"PAUSED"`) {
			t.Errorf("status after pause = %s, want PAUSED", st)
		}
	}
	e.keyCall("PUT", exporters+"/minimal/reset", "{}", 200, 0)
	if st := e.keyCall("GET", exporters+"/minimal/status", "", 200, 0); !strings.Contains(st, `"state":"PAUSED"`) {
		t.Errorf("status after a reset of a paused exporter = %s, want PAUSED", st)
	}
	e.keyCall("PUT", exporters+"/minimal/resume", "{}", 200, 0)
	if st := e.keyCall("GET", exporters+"/minimal/status", "", 200, 0); !strings.Contains(st, `"state":"STARTING"`) {
		t.Errorf("status after resume = %s, want STARTING", st)
	}
	if got := e.keyCall("DELETE", exporters+"/minimal", "", 200, 0); got != `{"name":"minimal"}` {
		t.Errorf("delete = %s", got)
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/minimal", ""}, {"PUT", "/minimal", `{"subjects":["a"]}`}, {"DELETE", "/minimal", ""},
		{"GET", "/minimal/config", ""}, {"PUT", "/minimal/config", `{"config":{"a":"b"}}`},
		{"GET", "/minimal/status", ""}, {"PUT", "/minimal/pause", "{}"}, {"PUT", "/minimal/resume", "{}"},
		{"PUT", "/minimal/reset", "{}"},
	} {
		e.keyCall(r.method, exporters+r.path, r.body, 404, 40450)
	}
	if got := e.keyCall("GET", exporters, "", 200, 0); got != `["b-exp"]` {
		t.Errorf("GET /exporters after delete = %s", got)
	}
}

// TestExporterUpdate: PUT /exporters/{name} changes the fields sent and
// keeps the others; PUT .../config merges into the config, the body
// being the config or {"config": {...}}; the name cannot change.
func TestExporterUpdate(t *testing.T) {
	e := newEnv(t)
	e.keyCall("POST", exporters, `{"name":"u","subjects":["a"],"subjectRenameFormat":"x.${subject}","config":{"schema.registry.url":"http://old:8081"}}`, 200, 0)
	e.keyCall("PUT", exporters+"/u", `{"contextType":"CUSTOM","context":".updated"}`, 200, 0)
	want := `{"name":"u","contextType":"CUSTOM","context":".updated","subjects":["a"],"subjectRenameFormat":"x.${subject}","config":{"schema.registry.url":"http://old:8081"}}`
	if got := e.keyCall("GET", exporters+"/u", "", 200, 0); got != want {
		t.Errorf("after a partial update: %s, want %s", got, want)
	}
	e.keyCall("PUT", exporters+"/u", `{"subjects":["n1","n2"]}`, 200, 0)
	e.keyCall("PUT", exporters+"/u/config", `{"config":{"schema.registry.url":"http://new:8081","timeout.ms":"60000"}}`, 200, 0)
	e.keyCall("PUT", exporters+"/u/config", `{"extra":"1"}`, 200, 0)
	if got := e.keyCall("GET", exporters+"/u/config", "", 200, 0); got != `{"extra":"[hidden]","schema.registry.url":"http://new:8081","timeout.ms":"60000"}` {
		t.Errorf("config after two merges = %s", got)
	}
	if got := e.keyCall("GET", exporters+"/u", "", 200, 0); !strings.Contains(got, `"subjects":["n1","n2"]`) {
		t.Errorf("subjects after update = %s", got)
	}
	e.keyCall("PUT", exporters+"/u", `{"name":"other"}`, 409, 40950)
	e.keyCall("PUT", exporters+"/u/config", `{"timeout.ms":60000}`, 409, 40951)
}

// TestExporterValidation: each invalid field answers its Confluent code
// (a field Confluent's codes do not cover, 422), and nothing is stored.
func TestExporterValidation(t *testing.T) {
	e := newEnv(t)
	const cfg = `"config":{"schema.registry.url":"http://dest:8081"}`
	many := make([]string, exporter.MaxSubjects+1)
	for i := range many {
		many[i] = fmt.Sprintf(`"s%d"`, i)
	}
	for _, c := range []struct {
		body string
		code int
	}{
		{`{"name":""}`, 40950},
		{`{}`, 40950},
		{`{"name":"a b"}`, 40950},
		{`{"name":"` + strings.Repeat("n", 257) + `"}`, 40950},
		{`{"name":"x","contextType":"INVALID"}`, 422},
		{`{"name":"x","contextType":"CUSTOM"}`, 422},
		{`{"name":"x","contextType":"CUSTOM","context":"a:b"}`, 422},
		{`{"name":"x","subjectRenameFormat":"a\u0000b"}`, 422},
		{`{"name":"x","subjects":[""]}`, 40952},
		{`{"name":"x","subjects":[` + strings.Join(many, ",") + `]}`, 40952},
		{`{"name":"x","config":{"schema.registry.url":"ftp://h"}}`, 40951},
		{`{"name":"x","config":{"schema.registry.url":"file:///etc/passwd"}}`, 40951},
		{`{"name":"x","config":{"schema.registry.url":"http://u:p@h:8081"}}`, 40951},
		{`{"name":"x","config":{"schema.registry.url":"http://"}}`, 40951},
		{`{"name":"x","config":{"schema.registry.url":"http://h:8081?a=1"}}`, 40951},
		{`{"name":"x","config":{"schema.registry.url":"http://h:8081#f"}}`, 40951},
		{`{"name":"x","subjectRenameFormat":"fixed",` + cfg + `}`, 422},
		{`{"name":"x","subjectRenameFormat":":.x:${subject}",` + cfg + `}`, 422},
		{`{"name":"x","contextType":"CUSTOM","context":".__GLOBAL",` + cfg + `}`, 422},
		{`{"name":"x","contextType":"CUSTOM","context":"a\u202eb",` + cfg + `}`, 422},
	} {
		status := 409
		if c.code == 422 {
			status = 422
		}
		e.keyCall("POST", exporters, c.body, status, c.code)
	}
	if got := e.keyCall("GET", exporters, "", 200, 0); got != "[]" {
		t.Errorf("refused exporters were stored: %s", got)
	}
	e.keyCall("POST", exporters, `{"name":"x","contextType":"none","config":{"schema.registry.url":"http://dest:8081"}}`, 200, 0)
	if got := e.keyCall("GET", exporters+"/x", "", 200, 0); !strings.Contains(got, `"contextType":"NONE"`) {
		t.Errorf("contextType none = %s, want NONE", got)
	}
}

// TestExporterCredentialsNeverAnswered: basic auth user info and a
// bearer token are stored (the runner needs them) but never answered by
// GET /exporters/{name} or .../config, nor written to the audit log; a
// config read and sent back keeps them.
func TestExporterCredentialsNeverAnswered(t *testing.T) {
	e := newEnv(t)
	const secret, token = "pa55-w0rd", "t0ken-xyz"
	e.keyCall("POST", exporters, `{"name":"c","config":{"schema.registry.url":"https://dest:8081","basic.auth.credentials.source":"USER_INFO","basic.auth.user.info":"bob:`+secret+`","bearer.auth.token":"`+token+`"}}`, 200, 0)
	for _, path := range []string{"/c", "/c/config"} {
		got := e.keyCall("GET", exporters+path, "", 200, 0)
		if strings.Contains(got, secret) || strings.Contains(got, token) || strings.Contains(got, "bob") {
			t.Errorf("GET %s answers credentials: %s", path, got)
		}
		if !strings.Contains(got, `"basic.auth.user.info":"`+exporter.Redacted+`"`) || !strings.Contains(got, `"basic.auth.credentials.source":"USER_INFO"`) {
			t.Errorf("GET %s = %s, want the user info redacted and the source kept", path, got)
		}
	}
	cfg := e.keyCall("GET", exporters+"/c/config", "", 200, 0)
	e.keyCall("PUT", exporters+"/c/config", cfg, 200, 0)
	e.keyCall("PUT", exporters+"/c", `{"config":`+cfg+`,"subjects":["x"]}`, 200, 0)
	var stored exporter.Stored
	err := e.svc.ExporterStore().View(context.Background(), func(tx exporter.Tx) error {
		var err error
		stored, _, err = tx.Exporter(context.Background(), "c")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := exporter.NewSealer([]byte(exporterSecret))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"basic.auth.user.info": "bob:" + secret, "bearer.auth.token": token} {
		sealed := stored.Config[key]
		if strings.Contains(sealed, want) {
			t.Errorf("stored %s = %q: the credential is stored in the clear", key, sealed)
		}
		if got, err := sealer.Open(key, sealed); err != nil || got != want {
			t.Errorf("stored %s after sending the redacted config back opens to %q (%v), want the credential kept", key, got, err)
		}
	}
	audit := e.keyCall("GET", "/governance/audit", "", 200, 0)
	if !strings.Contains(audit, "exporter.create") || !strings.Contains(audit, "exporter.config") {
		t.Errorf("audit log lacks the exporter writes: %s", audit)
	}
	if strings.Contains(audit, secret) || strings.Contains(audit, token) || strings.Contains(e.log.String(), secret) {
		t.Errorf("credentials reached the audit log or the server log")
	}
}

// TestExporterCredentialsNeedASecret: a registry started without
// --secrets-key-file (no registry.WithExporterSealer) refuses an exporter
// config with a credential (40951, naming the flag) and takes one without.
func TestExporterCredentialsNeedASecret(t *testing.T) {
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	h := api.New(registry.NewService(store, []compat.Format{avro.Format{}}), api.Options{})
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"name":"c","config":{"schema.registry.url":"https://dest:8081","basic.auth.user.info":"bob:pw"}}`, 409, `"error_code":40951`},
		{`{"name":"c","config":{"schema.registry.url":"https://dest:8081","bearer.auth.token":"tok"}}`, 409, "--secrets-key-file"},
		{`{"name":"c","config":{"schema.registry.url":"https://dest:8081"}}`, 200, `"name":"c"`},
	} {
		req := httptest.NewRequest("POST", exporters, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) || strings.Contains(rec.Body.String(), "pw") {
			t.Errorf("POST %s = %d %s, want %d with %s", tc.body, rec.Code, rec.Body, tc.status, tc.want)
		}
	}
}

// TestExportersLimit: a registry holds at most MaxExporters exporters
// (40964 past it).
func TestExportersLimit(t *testing.T) {
	e := newEnv(t)
	for i := range exporter.MaxExporters {
		e.keyCall("POST", exporters, fmt.Sprintf(`{"name":"e%03d","config":{"schema.registry.url":"http://dest:8081"}}`, i), 200, 0)
	}
	e.keyCall("POST", exporters, `{"name":"one-too-many","config":{"schema.registry.url":"http://dest:8081"}}`, 409, 40964)
}

// isExporterOp reports whether an OpenAPI operation is tagged exporters
// (called by TestExportersAPIDocumented, skipped by TestGovernanceAPI).
func isExporterOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	return slices.Contains(tags, any("exporters"))
}

// TestExportersAPIDocumented calls every operation tagged exporters,
// checking request and response bodies (errors included) against the
// document's schemas.
func TestExportersAPIDocumented(t *testing.T) {
	e := newGovEnv(t)
	const one = exporters + "/{name}"
	e.call(200, "POST", exporters, exporters, `{"name":"x","contextType":"CUSTOM","context":".m","subjects":["a-*"],"config":{"schema.registry.url":"http://127.0.0.1:1","basic.auth.user.info":"u:p"}}`)
	e.call(409, "POST", exporters, exporters, `{"name":"x"}`)
	e.call(200, "GET", exporters, exporters, "")
	e.call(200, "GET", one, exporters+"/x", "")
	e.call(404, "GET", one, exporters+"/none", "")
	e.call(200, "PUT", one, exporters+"/x", `{"subjects":["b"]}`)
	e.call(200, "GET", one+"/config", exporters+"/x/config", "")
	e.call(200, "PUT", one+"/config", exporters+"/x/config", `{"config":{"timeout.ms":"1000"}}`)
	e.call(200, "GET", one+"/status", exporters+"/x/status", "")
	e.call(200, "PUT", one+"/pause", exporters+"/x/pause", "")
	e.call(200, "PUT", one+"/resume", exporters+"/x/resume", "")
	e.call(409, "PUT", one+"/resume", exporters+"/x/resume", "")
	e.call(200, "PUT", one+"/reset", exporters+"/x/reset", "")
	e.call(200, "DELETE", one, exporters+"/x", "")
}
