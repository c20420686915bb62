package api

import (
	"net/http"
)

// access says who may call an endpoint once authentication is on (see
// authorize.go). Without an auth config every endpoint is open, as on a
// loopback-only registry.
type access struct {
	kind accessKind
	// team names the path value that holds the team a teamWrite acts for
	// ("consumer", "service"); "" when the handler reads it from the body
	// and calls requireTeam itself.
	team string
	// publicWhen, when set, makes the endpoint public under the options
	// it approves (GET /metrics with MetricsOptions.Public).
	publicWhen func(Options) bool
	// bodySubject, for an owner write, says the subject is in the body:
	// authorize lets every principal through and the handler calls
	// requireSubjectWrite once it has read it.
	bodySubject bool
}

type accessKind int

const (
	// public: no credentials ever (health probes).
	public accessKind = iota
	// read: GETs; anonymous callers too when the auth file says
	// `anonymous: read`.
	read
	// check: a POST that changes nothing (lookup, compatibility, dry run,
	// contract verification); treated as a read.
	check
	// owner: a write to one subject, by a member of the team that owns it
	// (or, for an unowned subject under `unowned: claim`, any team member).
	owner
	// ownerSoftAdminPermanent: a delete, an owner's when soft, an admin's
	// when ?permanent=true.
	ownerSoftAdminPermanent
	// teamWrite: a write a principal makes for one of its own teams
	// (contracts, declared consumers).
	teamWrite
	// admin: global config, mode and policy, and everything else.
	admin
	// authenticated: a read that needs credentials even under
	// `anonymous: read` (the DEK registry's keys).
	authenticated
)

func (k accessKind) String() string {
	return [...]string{"public", "read", "check", "owner", "owner (soft) / admin (permanent)", "own team", "admin", "authenticated"}[k]
}

// routeAccess gives the access of every route pattern; router.HandleFunc
// refuses a pattern missing here, so a new endpoint cannot be added
// without saying who may call it.
var routeAccess = map[string]access{
	"GET /{$}":            {kind: read},
	"GET /health":         {kind: public},
	"GET /health/live":    {kind: public},
	"GET /health/ready":   {kind: public},
	"GET /health/startup": {kind: public},
	"GET /livez":          {kind: public},
	"GET /readyz":         {kind: public},
	// Prometheus scrapers often have no credentials: serve
	// --metrics-public lets them in.
	"GET /metrics":               {kind: read, publicWhen: func(o Options) bool { return o.Metrics.Public }},
	"GET /v1/metadata/id":        {kind: read},
	"GET /v1/metadata/version":   {kind: read},
	"GET /contexts":              {kind: read},
	"DELETE /contexts/{context}": {kind: admin},
	"GET /openapi.json":          {kind: read},

	"GET /subjects":                                           {kind: read},
	"POST /subjects/{subject}":                                {kind: check},
	"DELETE /subjects/{subject}":                              {kind: ownerSoftAdminPermanent},
	"GET /subjects/{subject}/versions":                        {kind: read},
	"POST /subjects/{subject}/versions":                       {kind: owner},
	"GET /subjects/{subject}/versions/{version}":              {kind: read},
	"DELETE /subjects/{subject}/versions/{version}":           {kind: ownerSoftAdminPermanent},
	"GET /subjects/{subject}/versions/{version}/schema":       {kind: read},
	"GET /subjects/{subject}/versions/{version}/referencedby": {kind: read},
	"POST /subjects/{subject}/versions/{version}/tags":        {kind: owner},
	"GET /subjects/{subject}/metadata":                        {kind: read},

	"GET /schemas":                   {kind: read},
	"GET /schemas/types":             {kind: read},
	"GET /schemas/ids/{id}":          {kind: read},
	"GET /schemas/ids/{id}/schema":   {kind: read},
	"GET /schemas/ids/{id}/subjects": {kind: read},
	"GET /schemas/ids/{id}/versions": {kind: read},

	"GET /config":              {kind: read},
	"PUT /config":              {kind: admin},
	"DELETE /config":           {kind: admin},
	"GET /config/{subject}":    {kind: read},
	"PUT /config/{subject}":    {kind: owner},
	"DELETE /config/{subject}": {kind: owner},

	"GET /mode":              {kind: read},
	"PUT /mode":              {kind: admin},
	"DELETE /mode":           {kind: admin},
	"GET /mode/{subject}":    {kind: read},
	"PUT /mode/{subject}":    {kind: owner}, // IMPORT: admin (putMode)
	"DELETE /mode/{subject}": {kind: owner},

	"POST /compatibility/subjects/{subject}/versions":           {kind: check},
	"POST /compatibility/subjects/{subject}/versions/{version}": {kind: check},

	"GET /governance/rules":           {kind: read},
	"GET /governance/policy":          {kind: read},
	"PUT /governance/policy":          {kind: admin},
	"DELETE /governance/policy":       {kind: admin},
	"GET /governance/owners":          {kind: read},
	"GET /governance/deprecations":    {kind: read},
	"GET /governance/audit":           {kind: read},
	"GET /governance/contracts":       {kind: read},
	"GET /governance/lineage/graph":   {kind: read},
	"GET /governance/lineage/pii":     {kind: read},
	"GET /governance/lineage/changes": {kind: read},

	"GET " + govSubject + "/owner":                                        {kind: read},
	"PUT " + govSubject + "/owner":                                        {kind: owner},
	"DELETE " + govSubject + "/owner":                                     {kind: owner},
	"GET " + govSubject + "/policy":                                       {kind: read},
	"PUT " + govSubject + "/policy":                                       {kind: owner},
	"DELETE " + govSubject + "/policy":                                    {kind: owner},
	"GET " + govSubject + "/policy/effective":                             {kind: read},
	"GET " + govSubject + "/deprecations":                                 {kind: read},
	"POST " + govSubject + "/deprecations":                                {kind: owner},
	"GET " + govSubject + "/deprecations/{item}":                          {kind: read},
	"DELETE " + govSubject + "/deprecations/{item}":                       {kind: owner},
	"POST " + govSubject + "/deprecations/{item}/extensions":              {kind: owner},
	"DELETE " + govSubject + "/deprecations/{item}/extensions/{consumer}": {kind: owner},
	"GET " + govSubject + "/tags":                                         {kind: read},
	"PUT " + govSubject + "/tags":                                         {kind: owner},
	"DELETE " + govSubject + "/tags":                                      {kind: owner},
	"GET " + govSubject + "/dismissals":                                   {kind: read},
	"POST " + govSubject + "/dismissals":                                  {kind: owner},
	"DELETE " + govSubject + "/dismissals/{field}":                        {kind: owner},
	"GET " + govSubject + "/removed":                                      {kind: read},
	"GET " + govSubject + "/changelog":                                    {kind: read},
	"GET " + govSubject + "/state":                                        {kind: read},
	"POST " + govSubject + "/check":                                       {kind: check},
	"GET " + govSubject + "/contracts":                                    {kind: read},
	"POST " + govSubject + "/contracts":                                   {kind: teamWrite}, // consumer in the body
	"POST " + govSubject + "/contracts/verify":                            {kind: check},
	"GET " + govSubject + "/contracts/{consumer}":                         {kind: read},
	"DELETE " + govSubject + "/contracts/{consumer}":                      {kind: teamWrite, team: "consumer"},
	"PUT " + govSubject + "/producers/{service}":                          {kind: owner},
	"DELETE " + govSubject + "/producers/{service}":                       {kind: owner},
	"PUT " + govSubject + "/consumers/{service}":                          {kind: teamWrite, team: "service"},
	"DELETE " + govSubject + "/consumers/{service}":                       {kind: teamWrite, team: "service"},
	"GET " + govSubject + "/impact":                                       {kind: read},
	"GET " + govSubject + "/migrations":                                   {kind: read},

	// The DEK registry (registry/dek): KEKs are the admins'; a subject's
	// DEKs its owners' (a permanent delete, which makes data encrypted
	// with the DEK unreadable for good, the admins'); reading any key needs
	// credentials.
	"GET " + dekPrefix:                                                         {kind: authenticated},
	"POST " + dekPrefix:                                                        {kind: admin},
	"GET " + dekPrefix + "/{name}":                                             {kind: authenticated},
	"PUT " + dekPrefix + "/{name}":                                             {kind: admin},
	"DELETE " + dekPrefix + "/{name}":                                          {kind: admin},
	"POST " + dekPrefix + "/{name}/undelete":                                   {kind: admin},
	"POST " + dekPrefix + "/{name}/test":                                       {kind: authenticated},
	"GET " + dekPrefix + "/{name}/deks":                                        {kind: authenticated},
	"POST " + dekPrefix + "/{name}/deks":                                       {kind: owner, bodySubject: true},
	"GET " + dekPrefix + "/{name}/deks/{subject}":                              {kind: authenticated},
	"POST " + dekPrefix + "/{name}/deks/{subject}":                             {kind: owner},
	"DELETE " + dekPrefix + "/{name}/deks/{subject}":                           {kind: ownerSoftAdminPermanent},
	"POST " + dekPrefix + "/{name}/deks/{subject}/undelete":                    {kind: owner},
	"GET " + dekPrefix + "/{name}/deks/{subject}/versions":                     {kind: authenticated},
	"GET " + dekPrefix + "/{name}/deks/{subject}/versions/{version}":           {kind: authenticated},
	"DELETE " + dekPrefix + "/{name}/deks/{subject}/versions/{version}":        {kind: ownerSoftAdminPermanent},
	"POST " + dekPrefix + "/{name}/deks/{subject}/versions/{version}/undelete": {kind: owner},

	// Schema exporters copy subjects to another registry with the
	// credentials their config holds: admins only, reads included.
	"GET " + exporterPrefix:                    {kind: admin},
	"POST " + exporterPrefix:                   {kind: admin},
	"GET " + exporterPrefix + "/{name}":        {kind: admin},
	"PUT " + exporterPrefix + "/{name}":        {kind: admin},
	"DELETE " + exporterPrefix + "/{name}":     {kind: admin},
	"GET " + exporterPrefix + "/{name}/config": {kind: admin},
	"PUT " + exporterPrefix + "/{name}/config": {kind: admin},
	"GET " + exporterPrefix + "/{name}/status": {kind: admin},
	"PUT " + exporterPrefix + "/{name}/pause":  {kind: admin},
	"PUT " + exporterPrefix + "/{name}/resume": {kind: admin},
	"PUT " + exporterPrefix + "/{name}/reset":  {kind: admin},

	// The whole registry, audit log included, out and in: admins only
	// (an import restores the audit history, so it is never an owner's).
	"GET /admin/export":  {kind: admin},
	"POST /admin/import": {kind: admin},

	"GET " + PactBrokerPrefix:                         {kind: read},
	"GET " + PactBrokerPrefix + "/{$}":                {kind: read},
	"POST " + PactBrokerPrefix + "/contracts/publish": {kind: teamWrite}, // pacticipantName in the body
	"PUT " + PactBrokerPrefix + "/pacts/provider/{provider}/consumer/{consumer}/version/{version}": {kind: teamWrite, team: "consumer"},
	"GET " + PactBrokerPrefix + "/pacts/provider/{provider}/consumer/{consumer}/latest":            {kind: read},
	"GET " + PactBrokerPrefix + "/matrix":                                                          {kind: read},
	"GET " + PactBrokerPrefix + "/can-i-deploy":                                                    {kind: read},
}

// govSubject is the prefix of the per-subject governance endpoints.
const govSubject = "/governance/subjects/{subject}"

// router registers endpoints on a ServeMux, each wrapped in the
// authorization its routeAccess entry gives.
type router struct {
	mux *http.ServeMux
	s   *server
	// patterns are the patterns registered, in order.
	patterns []string
}

// HandleFunc registers h for pattern; it panics (at start-up, in every
// test) when routeAccess has no entry for pattern.
func (rt *router) HandleFunc(pattern string, h http.HandlerFunc) {
	a, ok := routeAccess[pattern]
	if !ok {
		panic("api: route " + pattern + " has no entry in routeAccess (access.go)")
	}
	if a.publicWhen != nil && a.publicWhen(rt.s.opts) {
		a.kind = public
	}
	rt.patterns = append(rt.patterns, pattern)
	inner := rt.s.authorize(a, h)
	m := rt.s.metrics
	if m == nil {
		rt.mux.Handle(pattern, inner)
		return
	}
	rm := m.route(pattern)
	rt.s.routeMetrics[pattern] = rm
	rt.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec, ok := w.(*statusRecorder); ok {
			rec.route = rm
		}
		inner.ServeHTTP(w, r)
	}))
}
