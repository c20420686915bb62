package api_test

import (
	"strings"
	"testing"
)

// TestGovernanceContexts: governance is keyed by the qualified subject,
// so ownership, deprecations, tags and the PII map, producers and
// consumers in the lineage graph, contracts and the changelog work for
// ":.ctx:s" through the /contexts/.ctx prefix and the qualified path
// alike, and stay apart from the default context's "s".
func TestGovernanceContexts(t *testing.T) {
	e := newEnv(t)
	schema := `{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"}]}"}`
	pact := `{"consumer":{"name":"shop"},"provider":{"name":":.ctx:s"},"messages":[{"description":"an r","contents":{"x":"a"}}],` +
		`"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
	e.run([]step{
		{method: "POST", path: "/contexts/.ctx/subjects/s/versions", body: schema},
		{method: "POST", path: "/subjects/s/versions", body: schema},
		{method: "PUT", path: "/contexts/.ctx/governance/subjects/s/owner", body: `{"team":"logistics","contact":"#l"}`},
		{method: "GET", path: "/governance/subjects/:.ctx:s/owner", contains: []string{`"team":"logistics"`}},
		{method: "GET", path: "/governance/subjects/s/owner", status: 404, code: 40480},
		{method: "GET", path: "/governance/owners", contains: []string{`":.ctx:s"`}},
		{method: "POST", path: "/contexts/.ctx/governance/subjects/s/deprecations", body: `{"path":".x","reason":"replaced","ttlDays":30}`},
		{method: "GET", path: "/governance/subjects/:.ctx:s/deprecations", contains: []string{`".x"`}},
		{method: "GET", path: "/governance/subjects/s/deprecations", json: `[]`},
		{method: "PUT", path: "/contexts/.ctx/governance/subjects/s/tags", body: `{"tags":{"R.x":["PII"]}}`},
		{method: "PUT", path: "/contexts/.ctx/governance/subjects/s/producers/orders", body: `{"versions":[1]}`},
		{method: "PUT", path: "/contexts/.ctx/governance/subjects/s/consumers/shop", body: `{"fields":[".x"]}`},
		{method: "GET", path: "/governance/lineage/pii", contains: []string{`:.ctx:s`}},
		{method: "POST", path: "/contexts/.ctx/governance/subjects/s/contracts", body: `{"consumer":"shop","consumerVersion":"1.0.0","pact":` + pact + `}`},
		{method: "GET", path: "/governance/subjects/:.ctx:s/contracts", contains: []string{`"shop"`}},
		{method: "GET", path: "/contexts/.ctx/governance/subjects/s/changelog", contains: []string{`"version":1`}},
	})
	status, _, graph := e.do("GET", "/governance/lineage/graph?format=json", "")
	for _, want := range []string{`:.ctx:s`, `orders`, `shop`} {
		if status != 200 || !strings.Contains(graph, want) {
			t.Errorf("lineage graph: %d %s, want %q in it", status, graph, want)
		}
	}
}
