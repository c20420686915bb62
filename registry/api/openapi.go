package api

import (
	_ "embed"
	"net/http"
	"strconv"
)

// OpenAPI is the OpenAPI 3.1 description of Charter's governance API
// (/governance/...) and of the Confluent endpoints Charter adds for data
// contracts (GET /subjects/{s}/metadata), served at GET /openapi.json.
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
