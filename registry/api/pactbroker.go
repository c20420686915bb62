package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// The Pact Broker API subset that the standard Pact tooling uses to
// publish message pacts and ask can-i-deploy (docs.pact.io, "Pact Broker
// API": the HAL index, "Publish contracts", "Publish pact", "Matrix",
// "Can I deploy"), under PactBrokerPrefix: point a Pact client's broker
// base URL at <charter>/pact-broker.
//
// Mapping: a pact's provider name is the Charter subject it reads. When no
// subject of that name has a live version and "<provider>-value" has one
// (Confluent's TopicNameStrategy), that subject is used. A published pact
// is stored as the consumer's contract for the subject (one per consumer
// and subject; a later version replaces it), exactly as POST
// /governance/subjects/{s}/contracts stores it.
//
// Verdicts: a matrix row is one stored contract; it succeeds when the
// contract verifies against the subject's latest version now (its
// "provider version" is that version's number). The consumer's version
// must be the one last published; an older one has no row. deployable is
// true when every row succeeds and there is at least one row, or when the
// pacticipant is a subject (a provider) whose consumers all verify.
// Verification results from provider builds are not accepted: Charter is
// the verifier.

// PactBrokerPrefix is the path under which the Pact Broker API subset is
// served.
const PactBrokerPrefix = "/pact-broker"

// pactBrokerRoutes registers the Pact Broker endpoints.
func (s *server) pactBrokerRoutes(mux *router) {
	const p = PactBrokerPrefix
	mux.HandleFunc("GET "+p, s.pbIndex)
	mux.HandleFunc("GET "+p+"/{$}", s.pbIndex)
	mux.HandleFunc("POST "+p+"/contracts/publish", s.pbPublishContracts)
	mux.HandleFunc("PUT "+p+"/pacts/provider/{provider}/consumer/{consumer}/version/{version}", s.pbPutPact)
	mux.HandleFunc("GET "+p+"/pacts/provider/{provider}/consumer/{consumer}/latest", s.pbLatestPact)
	mux.HandleFunc("GET "+p+"/matrix", s.pbMatrix)
	mux.HandleFunc("GET "+p+"/can-i-deploy", s.pbCanIDeploy)
}

type halLink struct {
	Href      string `json:"href"`
	Title     string `json:"title,omitempty"`
	Templated bool   `json:"templated,omitempty"`
}

// pbBase is the absolute URL of the broker API for links.
func pbBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
		scheme = p
	}
	return scheme + "://" + r.Host + PactBrokerPrefix
}

// pbIndex: GET /pact-broker → the HAL index with the relations the Pact
// CLI looks up.
func (s *server) pbIndex(w http.ResponseWriter, r *http.Request) {
	b := pbBase(r)
	writeHAL(w, http.StatusOK, map[string]any{"_links": map[string]halLink{
		"self":                 {Href: b, Title: "Index"},
		"pb:publish-contracts": {Href: b + "/contracts/publish", Title: "Publish contracts"},
		"pb:publish-pact":      {Href: b + "/pacts/provider/{provider}/consumer/{consumer}/version/{consumerApplicationVersion}", Title: "Publish a pact", Templated: true},
		"pb:latest-pact":       {Href: b + "/pacts/provider/{provider}/consumer/{consumer}/latest", Title: "Latest pact", Templated: true},
		"pb:matrix":            {Href: b + "/matrix", Title: "The matrix"},
		"pb:can-i-deploy-pacticipant-version": {Href: b + "/can-i-deploy?pacticipant={pacticipant}&version={version}",
			Title: "Can I deploy this pacticipant version?", Templated: true},
	}})
}

// writeHAL writes v as application/hal+json.
func writeHAL(w http.ResponseWriter, status int, v any) {
	body, err := marshalJSON(v)
	if err != nil {
		body, status = []byte(`{"error":"encode response"}`), http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/hal+json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// pbSubject maps a provider name to the subject it reads (see above).
func (s *server) pbSubject(r *http.Request, provider string) string {
	if _, err := s.svc.Version(r.Context(), provider, registry.Latest, false); err == nil {
		return provider
	}
	if _, err := s.svc.Version(r.Context(), provider+"-value", registry.Latest, false); err == nil {
		return provider + "-value"
	}
	return provider
}

// pbPublish stores one pact for provider's subject.
func (s *server) pbPublish(r *http.Request, provider, consumer, version, branch string, pact json.RawMessage) (registry.ContractRecord, error) {
	return s.svc.ContractRegistry().PublishContract(r.Context(), registry.PublishContractRequest{Subject: s.pbSubject(r, provider),
		Consumer: consumer, ConsumerVersion: version, Branch: branch, Pact: pact})
}

// pbPutPact: PUT /pact-broker/pacts/provider/{p}/consumer/{c}/version/{v}
// with the pact file as the body → the pact, 200.
func (s *server) pbPutPact(w http.ResponseWriter, r *http.Request) {
	var pact json.RawMessage
	if err := s.decodeBody(w, r, &pact); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if len(pact) == 0 {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract: the body must be the pact file"))
		return
	}
	rec, err := s.pbPublish(r, r.PathValue("provider"), r.PathValue("consumer"), r.PathValue("version"), "", pact)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeHAL(w, http.StatusOK, s.pbPactBody(r, rec))
}

// pbPactBody is a stored pact with the broker's _links.
func (s *server) pbPactBody(r *http.Request, rec registry.ContractRecord) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(rec.Pact, &m); err != nil || m == nil {
		m = map[string]any{}
	}
	b := pbBase(r)
	m["_links"] = map[string]halLink{
		"self":                {Href: pbLatestPactHref(b, rec.Subject, rec.Consumer)},
		"pb:consumer":         {Href: b, Title: rec.Consumer},
		"pb:provider":         {Href: b, Title: rec.Subject},
		"pb:consumer-version": {Href: b, Title: rec.ConsumerVersion},
	}
	return m
}

// pbLatestPact: GET /pact-broker/pacts/provider/{p}/consumer/{c}/latest →
// the pact last published. Errors: 40480 none.
func (s *server) pbLatestPact(w http.ResponseWriter, r *http.Request) {
	rec, err := s.svc.ContractRegistry().Contract(r.Context(), s.pbSubject(r, r.PathValue("provider")), r.PathValue("consumer"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeHAL(w, http.StatusOK, s.pbPactBody(r, rec))
}

// pbPublishRequest is the body of POST /contracts/publish (Pact Broker
// "Publish contracts"): the consumer, its version and branch, and its
// pacts base64-encoded.
type pbPublishRequest struct {
	PacticipantName          string   `json:"pacticipantName"`
	PacticipantVersionNumber string   `json:"pacticipantVersionNumber"`
	Branch                   string   `json:"branch"`
	Tags                     []string `json:"tags"`
	BuildURL                 string   `json:"buildUrl"`
	Contracts                []struct {
		ConsumerName  string `json:"consumerName"`
		ProviderName  string `json:"providerName"`
		Specification string `json:"specification"`
		ContentType   string `json:"contentType"`
		Content       string `json:"content"`
		// OnConflict ("overwrite", "merge") is accepted; Charter
		// always replaces the consumer's contract.
		OnConflict string `json:"onConflict"`
	} `json:"contracts"`
}

type pbNotice struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// pbPublishContracts: POST /pact-broker/contracts/publish → notices and
// links, as the Pact Broker answers. Every contract is checked before
// any is stored; a bad one stores none.
func (s *server) pbPublishContracts(w http.ResponseWriter, r *http.Request) {
	var req pbPublishRequest
	r.Header.Set(acceptUnknownHeader, "true")
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if strings.TrimSpace(req.PacticipantName) == "" || strings.TrimSpace(req.PacticipantVersionNumber) == "" {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract: pacticipantName and pacticipantVersionNumber are required"))
		return
	}
	if len(req.Contracts) == 0 {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract: no contracts to publish"))
		return
	}
	if !s.requireTeam(w, r, req.PacticipantName) {
		return
	}
	pacts := make([]json.RawMessage, len(req.Contracts))
	for i, c := range req.Contracts {
		if c.Specification != "" && c.Specification != "pact" {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract %d: specification %q is not supported (want pact)", i, c.Specification))
			return
		}
		raw, err := base64.StdEncoding.DecodeString(c.Content)
		if err != nil || !json.Valid(raw) {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract %d: content must be a base64-encoded JSON pact", i))
			return
		}
		if c.ConsumerName != "" && c.ConsumerName != req.PacticipantName {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract %d: consumer %q is not the pacticipant %q", i, c.ConsumerName, req.PacticipantName))
			return
		}
		if c.ProviderName == "" {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid contract %d: no providerName", i))
			return
		}
		pacts[i] = raw
	}
	notices := []pbNotice{}
	b := pbBase(r)
	contracts := []halNamedLink{}
	for i, c := range req.Contracts {
		rec, err := s.pbPublish(r, c.ProviderName, req.PacticipantName, req.PacticipantVersionNumber, req.Branch, pacts[i])
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		verdict := "verifies against"
		if rec.Verification.Broken() {
			verdict = "does NOT verify against"
		}
		notices = append(notices, pbNotice{Type: "success", Text: fmt.Sprintf("Pact of %s %s for %s published to Charter subject %s; it %s version %d",
			rec.Consumer, rec.ConsumerVersion, c.ProviderName, rec.Subject, verdict, rec.Version)})
		contracts = append(contracts, halNamedLink{Href: pbLatestPactHref(b, rec.Subject, rec.Consumer),
			Name: fmt.Sprintf("Pact between %s (%s) and %s", rec.Consumer, rec.ConsumerVersion, c.ProviderName), Title: "Pact"})
	}
	// The Pact CLI (pact-broker-cli 0.8.x) decodes this answer strictly:
	// every member below is required or it reports "Failed to process
	// response notices". Charter has no pacticipant resources; their links
	// point at the matrix of the pacticipant (and version).
	pacticipant := halNamedLink{Href: b + "/matrix?q[][pacticipant]=" + url.QueryEscape(req.PacticipantName),
		Name: req.PacticipantName, Title: "Pacticipant"}
	version := halNamedLink{Href: pacticipant.Href + "&q[][version]=" + url.QueryEscape(req.PacticipantVersionNumber),
		Name: req.PacticipantVersionNumber, Title: "Pacticipant version"}
	writeHAL(w, http.StatusOK, map[string]any{
		"notices": notices,
		"logs":    []any{},
		"_embedded": map[string]any{
			"pacticipant": map[string]any{"name": req.PacticipantName, "_links": map[string]halLink{"self": {Href: pacticipant.Href}}},
			"version":     map[string]any{"number": req.PacticipantVersionNumber, "_links": map[string]halNamedLink{"self": version}},
		},
		"_links": map[string]any{
			"self":                        halLink{Href: b + "/contracts/publish"},
			"pb:pacticipant":              pacticipant,
			"pb:pacticipant-version":      version,
			"pb:pacticipant-version-tags": []halNamedLink{},
			"pb:contracts":                contracts,
		},
	})
}

// halNamedLink is a HAL link whose name and title are always present (the
// Pact CLI requires both in a publish answer).
type halNamedLink struct {
	Href  string `json:"href"`
	Name  string `json:"name"`
	Title string `json:"title"`
}

// pbLatestPactHref is the URL of the latest pact of consumer for subject.
func pbLatestPactHref(b, subject, consumer string) string {
	return fmt.Sprintf("%s/pacts/provider/%s/consumer/%s/latest", b, url.PathEscape(subject), url.PathEscape(consumer))
}

// pbRow is one row of the matrix, in the Pact Broker's shape.
type pbRow struct {
	Consumer           pbParticipant `json:"consumer"`
	Provider           pbParticipant `json:"provider"`
	Pact               pbPact        `json:"pact"`
	VerificationResult *pbResult     `json:"verificationResult"`
}

type pbParticipant struct {
	Name    string    `json:"name"`
	Version pbVersion `json:"version"`
}

type pbVersion struct {
	Number string `json:"number"`
	Branch string `json:"branch,omitempty"`
}

type pbPact struct {
	CreatedAt time.Time `json:"createdAt"`
}

type pbResult struct {
	Success    bool      `json:"success"`
	VerifiedAt time.Time `json:"verifiedAt"`
	// Findings are Charter's: the CONTRACT_* findings that break it.
	Findings []string `json:"findings,omitempty"`
}

// pbMatrixAnswer is the matrix / can-i-deploy answer.
type pbMatrixAnswer struct {
	Summary pbSummary  `json:"summary"`
	Notices []pbNotice `json:"notices"`
	Matrix  []pbRow    `json:"matrix"`
}

type pbSummary struct {
	Deployable bool   `json:"deployable"`
	Reason     string `json:"reason"`
	Success    int    `json:"success"`
	Failed     int    `json:"failed"`
	Unknown    int    `json:"unknown"`
}

// pbMatrix: GET /pact-broker/matrix?q[][pacticipant]=P&q[][version]=V
// (&latestby=cvp, &latest=true accepted) → the matrix for the first
// selector.
func (s *server) pbMatrix(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ps, vs := q["q[][pacticipant]"], q["q[][version]"]
	if len(ps) == 0 || ps[0] == "" {
		writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Give a pacticipant: ?q[][pacticipant]=NAME&q[][version]=VERSION"))
		return
	}
	version := ""
	if len(vs) > 0 {
		version = vs[0]
	}
	s.pbAnswerMatrix(w, r, ps[0], version)
}

// pbCanIDeploy: GET /pact-broker/can-i-deploy?pacticipant=P&version=V.
func (s *server) pbCanIDeploy(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("pacticipant") == "" {
		writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Give a pacticipant: ?pacticipant=NAME&version=VERSION"))
		return
	}
	s.pbAnswerMatrix(w, r, q.Get("pacticipant"), q.Get("version"))
}

func (s *server) pbAnswerMatrix(w http.ResponseWriter, r *http.Request, pacticipant, version string) {
	out, err := s.pbDeployable(r, pacticipant, version)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeHAL(w, http.StatusOK, out)
}

// pbDeployable builds the matrix of pacticipant at version: the contracts
// it published as a consumer, or, when it is a subject, the contracts of
// its consumers, each verified against the subject's latest version now.
func (s *server) pbDeployable(r *http.Request, pacticipant, version string) (pbMatrixAnswer, error) {
	ctx := r.Context()
	all, err := s.svc.ContractRegistry().Contracts(ctx, "")
	if err != nil {
		return pbMatrixAnswer{}, err
	}
	var recs []registry.ContractRecord
	asProvider := false
	for _, rec := range all {
		if rec.Consumer == pacticipant {
			recs = append(recs, rec)
		}
	}
	unknown := 0
	if len(recs) == 0 {
		subject := s.pbSubject(r, pacticipant)
		if _, err := s.svc.Version(ctx, subject, registry.Latest, false); err != nil {
			if errors.Is(err, srerr.ErrSubjectNotFound) {
				return pbMatrixAnswer{}, srerr.New(srerr.ErrGovernanceNotFound, "Pacticipant '%s' not found: no contract of that consumer and no subject of that name", pacticipant)
			}
			return pbMatrixAnswer{}, err
		}
		asProvider = true
		for _, rec := range all {
			if rec.Subject == subject {
				recs = append(recs, rec)
			}
		}
	} else if version != "" {
		kept := recs[:0]
		for _, rec := range recs {
			if rec.ConsumerVersion == version {
				kept = append(kept, rec)
			} else {
				unknown++
			}
		}
		recs = kept
	}
	out := pbMatrixAnswer{Notices: []pbNotice{}, Matrix: []pbRow{}}
	verdicts := map[string]map[string]pbVerdict{} // subject → consumer → verdict
	for _, rec := range recs {
		if verdicts[rec.Subject] == nil {
			v, err := s.pbVerify(r, rec.Subject)
			if err != nil {
				return pbMatrixAnswer{}, err
			}
			verdicts[rec.Subject] = v
		}
		v := verdicts[rec.Subject][rec.Consumer]
		row := pbRow{
			Consumer:           pbParticipant{Name: rec.Consumer, Version: pbVersion{Number: rec.ConsumerVersion, Branch: rec.Branch}},
			Provider:           pbParticipant{Name: rec.Subject, Version: pbVersion{Number: fmt.Sprint(v.version)}},
			Pact:               pbPact{CreatedAt: rec.PublishedAt},
			VerificationResult: &pbResult{Success: !v.broken, VerifiedAt: v.at, Findings: v.findings},
		}
		out.Matrix = append(out.Matrix, row)
		if v.broken {
			out.Summary.Failed++
			out.Notices = append(out.Notices, pbNotice{Type: "failure", Text: fmt.Sprintf("The contract of %s %s does not verify against %s version %d: %s",
				rec.Consumer, rec.ConsumerVersion, rec.Subject, v.version, strings.Join(v.findings, "; "))})
		} else {
			out.Summary.Success++
		}
	}
	out.Summary.Unknown = unknown
	switch {
	case out.Summary.Failed > 0:
		out.Summary.Reason = "One or more contracts do not verify against the latest schema of their subject"
	case len(out.Matrix) == 0 && !asProvider:
		out.Summary.Reason = fmt.Sprintf("No contract of %s version %s is published to Charter", pacticipant, version)
	case len(out.Matrix) == 0:
		out.Summary.Deployable = true
		out.Summary.Reason = "There are no missing dependencies"
	default:
		out.Summary.Deployable = true
		out.Summary.Reason = "All required verification results are published and successful"
	}
	kind := "success"
	if !out.Summary.Deployable {
		kind = "failure"
	}
	out.Notices = append([]pbNotice{{Type: kind, Text: out.Summary.Reason}}, out.Notices...)
	return out, nil
}

type pbVerdict struct {
	version  int
	broken   bool
	at       time.Time
	findings []string
}

// pbVerify verifies the contracts of subject against its latest version.
func (s *server) pbVerify(r *http.Request, subject string) (map[string]pbVerdict, error) {
	latest, err := s.svc.Version(r.Context(), subject, registry.Latest, false)
	if err != nil {
		return nil, err
	}
	res, err := s.svc.ContractRegistry().VerifyContracts(r.Context(), subject, registry.RegisterRequest{Schema: latest.Schema.Text, Type: latest.Schema.Type,
		References: latest.Schema.References, Metadata: latest.Schema.Metadata, RuleSet: latest.Schema.RuleSet})
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	out := map[string]pbVerdict{}
	for _, c := range res.Contracts {
		v := pbVerdict{version: latest.Version, broken: c.Broken(), at: now}
		for _, f := range c.Findings {
			if f.Breaks() {
				v.findings = append(v.findings, fmt.Sprintf("%s %s: %s", f.RuleID, f.Path, f.Message))
			}
		}
		sort.Strings(v.findings)
		out[c.Consumer] = v
	}
	return out, nil
}
