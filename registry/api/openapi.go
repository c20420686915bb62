package api

import (
	_ "embed"
	"net/http"
	"strconv"
)

// OpenAPI is the OpenAPI 3.1 description of every route of the API
// (the Confluent Schema Registry API, governance, the Pact Broker subset,
// the probes and /metrics; the web UI is not part of this handler),
// served at GET /openapi.json. TestOpenAPIDescribesEveryRoute walks the
// router so that a route without an operation fails, and TestOpenAPIValid
// validates it as OpenAPI 3.1.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPI: GET /openapi.json.
func (s *server) openAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(OpenAPI))}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(OpenAPI)
}
