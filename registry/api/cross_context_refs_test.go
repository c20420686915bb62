package api_test

import "testing"

// TestCrossContextReferencedBy: a schema referenced from another context
// lists its referrer under /referencedby (by the referrer's ID in its own
// context, as Confluent's getReferencedBy answers IDs; an ID held by
// referrers of two contexts is listed once) and cannot be deleted, softly
// or permanently, while the referrer holds it (42206, naming the
// referrer's context), as Confluent's InMemoryCache records a reference
// under the referenced subject's context.
func TestCrossContextReferencedBy(t *testing.T) {
	const (
		addr   = `{"type":"record","name":"Addr","namespace":"r","fields":[{"name":"street","type":"string"}]}`
		person = `{"type":"record","name":"Person","namespace":"r","fields":[{"name":"a","type":"r.Addr"}]}`
		local  = `{"type":"record","name":"Local","namespace":"r","fields":[{"name":"a","type":"r.Addr"}]}`
		filler = `{"type":"record","name":"Filler","fields":[{"name":"f","type":"int"}]}`
	)
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/:.r2:addr/versions", body: schemaBody(addr), json: `{"id":1}`},
		{method: "POST", path: "/subjects/:.r1:personx/versions", body: schemaBody(person, `"references":[{"name":"r.Addr","subject":":.r2:addr","version":1}]`), json: `{"id":1}`},
		{method: "GET", path: "/subjects/:.r2:addr/versions/1/referencedby", json: `[1]`},
		{method: "GET", path: "/contexts/.r2/subjects/addr/versions/1/referencedby", json: `[1]`},
		{method: "DELETE", path: "/subjects/:.r2:addr", status: 422, code: 42206, contains: []string{"referenced by schema ids [1 (context .r1)]"}},
		{method: "DELETE", path: "/subjects/:.r2:addr/versions/1", status: 422, code: 42206},
		// A referrer of the subject's own context and one of the default
		// context: IDs 2 of .r2 and of the default context, listed once.
		{method: "POST", path: "/subjects/filler/versions", body: schemaBody(filler), json: `{"id":1}`},
		{method: "POST", path: "/subjects/pref/versions", body: schemaBody(person, `"references":[{"name":"r.Addr","subject":":.r2:addr","version":1}]`), json: `{"id":2}`},
		{method: "POST", path: "/contexts/.r2/subjects/local/versions", body: schemaBody(local, `"references":[{"name":"r.Addr","subject":"addr","version":1}]`), json: `{"id":2}`},
		{method: "GET", path: "/subjects/:.r2:addr/versions/1/referencedby", json: `[1,2]`},
		{method: "DELETE", path: "/subjects/:.r2:addr", status: 422, code: 42206, contains: []string{"[1 (context .r1), 2 (context .), 2]"}},
		{method: "DELETE", path: "/subjects/pref?permanent=false"},
		{method: "DELETE", path: "/subjects/pref?permanent=true"},
		{method: "DELETE", path: "/contexts/.r2/subjects/local"},
		{method: "DELETE", path: "/contexts/.r2/subjects/local?permanent=true"},
		// The .r1 referrer soft-deleted: a soft delete of addr goes
		// through, a permanent one is refused while the referrer is stored.
		{method: "DELETE", path: "/subjects/:.r1:personx"},
		{method: "GET", path: "/subjects/:.r2:addr/versions/1/referencedby", json: `[]`},
		{method: "GET", path: "/subjects/:.r2:addr/versions/1/referencedby?deleted=true", json: `[1]`},
		{method: "DELETE", path: "/subjects/:.r2:addr", json: `[1]`},
		{method: "DELETE", path: "/subjects/:.r2:addr?permanent=true", status: 422, code: 42206, contains: []string{"1 (context .r1)"}},
		{method: "DELETE", path: "/subjects/:.r1:personx?permanent=true", json: `[1]`},
		{method: "DELETE", path: "/subjects/:.r2:addr?permanent=true", json: `[1]`},
	})
}
