// Package web is Charter's web UI for the teams that own schemas and the
// teams that consume them: subjects, versions and their comparison,
// deprecation countdowns with each reader's migration status, lineage
// graphs, the PII map, team pages, the audit log and the rule catalogue,
// served by `charter serve` under /ui/.
//
// It is one http.Handler (New) over a registry.Service. Pages are
// server-rendered html/template files embedded in the binary and parsed
// when the handler is built: a broken template makes New fail, not a
// request. Every page reads without JavaScript; a small script
// (static/app.js) shows times in the viewer's time zone and submits the
// filter forms as they change. Nothing is fetched from the network: the
// Content-Security-Policy allows this origin's own stylesheet and script
// only.
//
// The UI calls the same Service methods as the REST API (registry/api)
// and decides who may do what with the same policy functions
// (registry/auth): with an Authenticator, a visitor signs in with the
// credentials the API takes (a bearer token, or a user name and
// password), which the server keeps in memory for the session; without
// one, the UI is open like the API. Forms carry a CSRF token bound to the
// visitor's cookie and session, and cross-origin posts are refused.
package web
