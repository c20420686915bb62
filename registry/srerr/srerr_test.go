package srerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry/srerr"
)

func TestForCodeRoundTrip(t *testing.T) {
	for _, e := range srerr.All() {
		if got := srerr.ForCode(e.Code); got != e {
			t.Errorf("ForCode(%d) = %v, want %s", e.Code, got, e.Name)
		}
	}
	if srerr.ForCode(40901) != srerr.ErrIncompatibleSchema {
		t.Error("40901 must decode to ErrIncompatibleSchema")
	}
	if srerr.ForCode(12345) != nil {
		t.Error("unknown code must decode to nil")
	}
}

func TestAPIErrorMatchesSentinel(t *testing.T) {
	err := fmt.Errorf("get version: %w", srerr.New(srerr.ErrVersionNotFound, "Version 7 not found."))
	if !errors.Is(err, srerr.ErrVersionNotFound) {
		t.Fatal("wrapped APIError does not match its sentinel")
	}
	if errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Fatal("APIError matches a different sentinel")
	}
	code, status, msg := srerr.Code(err)
	if code != 40402 || status != 404 || msg != "Version 7 not found." {
		t.Fatalf("Code = %d %d %q", code, status, msg)
	}
}

func TestUnknownErrorIsStoreError(t *testing.T) {
	code, status, _ := srerr.Code(errors.New("disk on fire"))
	if code != 50001 || status != 500 {
		t.Fatalf("Code = %d %d, want 50001 500", code, status)
	}
}

// confluentCodes are the error codes Confluent Schema Registry and its
// enterprise features answer, by the name Charter gives them. Sources:
// Errors.java and DekRegistryErrors.java in confluentinc/schema-registry,
// the exporter (Schema Linking) API reference, and franz-go's sr package,
// which decodes 40450 and 409{50,51,52,60..64} as exporter errors.
var confluentCodes = map[int]string{
	// Framework and auth.
	400: "BAD_REQUEST", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 409: "INCOMPATIBLE_SCHEMA",
	413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 422: "UNPROCESSABLE_ENTITY",
	40101: "UNAUTHORIZED", 40301: "FORBIDDEN",
	// Core registry.
	40401: "SUBJECT_NOT_FOUND", 40402: "VERSION_NOT_FOUND", 40403: "SCHEMA_NOT_FOUND",
	40404: "SUBJECT_SOFT_DELETED", 40405: "SUBJECT_NOT_SOFT_DELETED",
	40406: "SCHEMAVERSION_SOFT_DELETED", 40407: "SCHEMAVERSION_NOT_SOFT_DELETED",
	40408: "SUBJECT_LEVEL_COMPATIBILITY_NOT_CONFIGURED", 40409: "SUBJECT_LEVEL_MODE_NOT_CONFIGURED",
	40410: "ASSOCIATION_NOT_FOUND",
	40901: "INCOMPATIBLE_SCHEMA", 40902: "TOO_MANY_ASSOCIATIONS", 40903: "ASSOCIATION_FOR_RESOURCE_EXISTS",
	40904: "ASSOCIATION_FOR_SUBJECT_EXISTS", 40905: "STRONG_ASSOCIATION_FOR_SUBJECT_EXISTS",
	40907: "NO_ACTIVE_SUBJECT_VERSION_EXISTS", 40908: "ASSOCIATION_FROZEN",
	40911: "ASSOCIATION_EXISTS", 40912: "TOO_MANY_ASSOCIATIONS",
	42201: "INVALID_SCHEMA", 42202: "INVALID_VERSION", 42203: "INVALID_COMPATIBILITY_LEVEL",
	42204: "INVALID_MODE", 42205: "OPERATION_NOT_PERMITTED", 42206: "REFERENCE_EXISTS",
	42207: "ID_DOES_NOT_MATCH", 42208: "INVALID_SUBJECT", 42209: "SCHEMA_TOO_LARGE",
	42210: "INVALID_RULESET", 42211: "CONTEXT_NOT_EMPTY", 42212: "INVALID_ASSOCIATION",
	42213: "ASSOCIATION_BATCH_LIMIT_EXCEEDED",
	50001: "STORE_ERROR", 50002: "OPERATION_TIMEOUT", 50003: "REQUEST_FORWARDING_FAILED",
	50004: "UNKNOWN_LEADER", 50005: "JSON_PARSE_ERROR",
	// Schema exporters (Schema Linking).
	40450: "EXPORTER_NOT_FOUND", 40950: "MISSING_OR_INVALID_EXPORTER_NAME",
	40951: "MISSING_OR_INVALID_EXPORTER_CONFIG", 40952: "INVALID_EXPORTER_SUBJECTS",
	40960: "EXPORTER_ALREADY_EXISTS", 40961: "EXPORTER_ALREADY_RUNNING",
	40962: "EXPORTER_ALREADY_STARTING", 40963: "EXPORTER_NOT_PAUSED", 40964: "TOO_MANY_EXPORTERS",
	// DEK registry (client-side field encryption).
	40370: "DEK_GENERATION_FORBIDDEN", 40470: "KEY_NOT_FOUND", 40471: "KEY_NOT_SOFT_DELETED",
	40472: "KEY_SOFT_DELETED", 40971: "KEY_ALREADY_EXISTS", 40972: "TOO_MANY_KEYS",
	42271: "INVALID_KEY", 42272: "KEY_REFERENCE_EXISTS", 50070: "DEK_GENERATION_ERROR",
}

// TestCharterCodesAvoidConfluent: every code in the table is either the
// Confluent error of that number (same name) or one of Charter's own,
// which must end in 80..89 and be unknown to Confluent. A Charter code on
// a Confluent number would be decoded by Confluent clients as another
// error (40450 read as "exporter not found" by franz-go).
func TestCharterCodesAvoidConfluent(t *testing.T) {
	own := 0
	for _, e := range srerr.All() {
		if name, ok := confluentCodes[e.Code]; ok {
			if name != e.Name {
				t.Errorf("%s uses %d, which Confluent answers as %s", e.Name, e.Code, name)
			}
			continue
		}
		own++
		if rest := e.Code % 100; rest < 80 || rest > 89 {
			t.Errorf("%s: Charter's own code %d is outside the documented xxx80–xxx89 range", e.Name, e.Code)
		}
		if e.Code/100 != e.Status {
			t.Errorf("%s: code %d does not start with its HTTP status %d", e.Name, e.Code, e.Status)
		}
	}
	if own != 9 {
		t.Errorf("found %d Charter-own codes, want 9 (GOVERNANCE_RECORD_NOT_FOUND, POLICY_VIOLATION, DEPRECATION_EXPIRED, REMOVED_FIELD_REUSED, INVALID_GOVERNANCE_REQUEST, RATE_LIMITED, IMPORT_CONFLICT, INVALID_DUMP, COMPATIBILITY_UNDECIDED)", own)
	}
}
