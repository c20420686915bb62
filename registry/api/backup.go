package api

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/dump"
	"github.com/charter-dev/charter/registry/srerr"
)

// MaxDumpBytes bounds the body of POST /admin/import (1 GiB), in place of
// Options.MaxBodyBytes: a dump holds the whole registry.
const MaxDumpBytes = 1 << 30

// backupRoutes registers the lossless export and import (admin only, see
// access.go): the whole registry as one dump (package registry/dump), read
// and restored each in one transaction.
func (s *server) backupRoutes(mux *router) {
	mux.HandleFunc("GET /admin/export", s.exportDump)
	mux.HandleFunc("POST /admin/import", s.importDump)
}

// exportDump answers the whole registry as a dump of format v3.
func (s *server) exportDump(w http.ResponseWriter, r *http.Request) {
	d, err := s.svc.Export(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	b, err := d.Encode()
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeRaw(w, http.StatusOK, b)
}

// importDump restores the dump in the body (any format registry/dump
// reads) in one transaction and answers the registry.ImportReport:
// ?merge=true adds it to a registry that is not empty, ?dryRun=true plans
// it and writes nothing. A refusal is 409 (40980) listing the conflicts;
// a dump that cannot be read is 422 (42284).
func (s *server) importDump(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxDumpBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			err = srerr.New(srerr.ErrPayloadTooLarge, "Dump too large: the limit is %d bytes", tooBig.Limit)
		} else {
			err = srerr.New(srerr.ErrBadRequest, "Cannot read the dump: %v", err)
		}
		writeError(w, r, s.log, err)
		return
	}
	d, err := dump.Read(body)
	if err != nil {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidDump, "Invalid dump: %s", strings.TrimPrefix(err.Error(), "read dump: ")))
		return
	}
	rep, err := s.svc.Import(r.Context(), d, registry.ImportOptions{Merge: boolParam(r, "merge"), DryRun: boolParam(r, "dryRun")})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
