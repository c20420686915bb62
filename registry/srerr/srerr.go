// Package srerr is the closed table of Confluent Schema Registry error codes
// that Charter's server returns and its client decodes.
//
// Both sides match errors with errors.Is against the sentinels below: the
// server wraps a sentinel with per-call detail (New), the client decodes
// `{"error_code": N, "message": "..."}` back to the same sentinel through
// ForCode. Codes and statuses follow Confluent's Errors.java
// (io.confluent.kafka.schemaregistry.rest.exceptions) and its API reference.
package srerr

import (
	"errors"
	"fmt"
)

// Error is one Confluent error code: its number, HTTP status, name and the
// default message used when a call adds no detail.
type Error struct {
	Code    int
	Status  int
	Name    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// The Confluent error codes Charter uses.
var (
	ErrUnauthorized            = &Error{40101, 401, "UNAUTHORIZED", "Unauthorized"}
	ErrForbidden               = &Error{40301, 403, "FORBIDDEN", "Forbidden"}
	ErrSubjectNotFound         = &Error{40401, 404, "SUBJECT_NOT_FOUND", "Subject not found"}
	ErrVersionNotFound         = &Error{40402, 404, "VERSION_NOT_FOUND", "Version not found"}
	ErrSchemaNotFound          = &Error{40403, 404, "SCHEMA_NOT_FOUND", "Schema not found"}
	ErrSubjectSoftDeleted      = &Error{40404, 404, "SUBJECT_SOFT_DELETED", "Subject was soft deleted. Set permanent=true to delete permanently"}
	ErrSubjectNotSoftDeleted   = &Error{40405, 404, "SUBJECT_NOT_SOFT_DELETED", "Subject was not deleted first before being permanently deleted"}
	ErrVersionSoftDeleted      = &Error{40406, 404, "SCHEMAVERSION_SOFT_DELETED", "Subject version was soft deleted. Set permanent=true to delete permanently"}
	ErrVersionNotSoftDeleted   = &Error{40407, 404, "SCHEMAVERSION_NOT_SOFT_DELETED", "Subject version was not deleted first before being permanently deleted"}
	ErrSubjectConfigNotFound   = &Error{40408, 404, "SUBJECT_LEVEL_COMPATIBILITY_NOT_CONFIGURED", "Subject does not have subject-level compatibility configured"}
	ErrSubjectModeNotFound     = &Error{40409, 404, "SUBJECT_LEVEL_MODE_NOT_CONFIGURED", "Subject does not have subject-level mode configured"}
	ErrNotFound                = &Error{404, 404, "NOT_FOUND", "HTTP 404 Not Found"}
	ErrMethodNotAllowed        = &Error{405, 405, "METHOD_NOT_ALLOWED", "HTTP 405 Method Not Allowed"}
	ErrIncompatibleSchema      = &Error{409, 409, "INCOMPATIBLE_SCHEMA", "Schema being registered is incompatible with an earlier schema"}
	ErrInvalidSchema           = &Error{42201, 422, "INVALID_SCHEMA", "Invalid schema"}
	ErrInvalidVersion          = &Error{42202, 422, "INVALID_VERSION", "Invalid version"}
	ErrInvalidCompatibility    = &Error{42203, 422, "INVALID_COMPATIBILITY_LEVEL", "Invalid compatibility level"}
	ErrInvalidMode             = &Error{42204, 422, "INVALID_MODE", "Invalid mode"}
	ErrOperationNotPermitted   = &Error{42205, 422, "OPERATION_NOT_PERMITTED", "Operation not permitted"}
	ErrReferenceExists         = &Error{42206, 422, "REFERENCE_EXISTS", "One or more references exist to the schema"}
	ErrIDDoesNotMatch          = &Error{42207, 422, "ID_DOES_NOT_MATCH", "Schema ID does not match the existing schema"}
	ErrInvalidSubject          = &Error{42208, 422, "INVALID_SUBJECT", "Invalid subject"}
	ErrSchemaTooLarge          = &Error{42209, 422, "SCHEMA_TOO_LARGE", "Schema too large"}
	ErrInvalidRuleSet          = &Error{42210, 422, "INVALID_RULESET", "Invalid ruleset"}
	ErrContextNotEmpty         = &Error{42211, 422, "CONTEXT_NOT_EMPTY", "Context not empty"}
	ErrUnprocessableEntity     = &Error{422, 422, "UNPROCESSABLE_ENTITY", "Unprocessable entity"}
	ErrBadRequest              = &Error{400, 400, "BAD_REQUEST", "Bad request"}
	ErrPayloadTooLarge         = &Error{413, 413, "PAYLOAD_TOO_LARGE", "Request body too large"}
	ErrUnsupportedMediaType    = &Error{415, 415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type"}
	ErrStore                   = &Error{50001, 500, "STORE_ERROR", "Error in the backend data store"}
	ErrOperationTimeout        = &Error{50002, 500, "OPERATION_TIMEOUT", "Operation timed out"}
	ErrRequestForwardingFailed = &Error{50003, 500, "REQUEST_FORWARDING_FAILED", "Error while forwarding the request to the leader"}
	ErrUnknownLeader           = &Error{50004, 500, "UNKNOWN_LEADER", "Leader not known"}
)

// The schema exporters' codes (/exporters, Confluent's schema linking),
// as Confluent's exporter API reference and franz-go's sr package number
// them. Confluent's 40963 (EXPORTER_NOT_PAUSED) is not in the table:
// Charter updates and resets a running exporter.
var (
	ErrExporterNotFound        = &Error{40450, 404, "EXPORTER_NOT_FOUND", "Exporter not found"}
	ErrInvalidExporterName     = &Error{40950, 409, "MISSING_OR_INVALID_EXPORTER_NAME", "Missing or invalid exporter name"}
	ErrInvalidExporterConfig   = &Error{40951, 409, "MISSING_OR_INVALID_EXPORTER_CONFIG", "Missing or invalid exporter config"}
	ErrInvalidExporterSubjects = &Error{40952, 409, "INVALID_EXPORTER_SUBJECTS", "Invalid exporter subjects"}
	ErrExporterAlreadyExists   = &Error{40960, 409, "EXPORTER_ALREADY_EXISTS", "Exporter already exists"}
	ErrExporterAlreadyRunning  = &Error{40961, 409, "EXPORTER_ALREADY_RUNNING", "Exporter already running"}
	ErrExporterAlreadyStarting = &Error{40962, 409, "EXPORTER_ALREADY_STARTING", "Exporter already starting"}
	ErrTooManyExporters        = &Error{40964, 409, "TOO_MANY_EXPORTERS", "Too many exporters"}
)

// The DEK registry's codes (/dek-registry/v1/...), as Confluent's
// DekRegistryErrors.java numbers them: one code serves KEKs and DEKs
// alike (40470 is an unknown KEK or DEK, 40971 either already there).
// Confluent's 40370 and 50070 (DEK generation forbidden or failed in the
// KMS) are not in the table: Charter never calls a KMS.
var (
	ErrKeyNotFound        = &Error{40470, 404, "KEY_NOT_FOUND", "Key not found"}
	ErrKeyNotSoftDeleted  = &Error{40471, 404, "KEY_NOT_SOFT_DELETED", "Key was not deleted first before being permanently deleted"}
	ErrKeySoftDeleted     = &Error{40472, 404, "KEY_SOFT_DELETED", "Key must be undeleted first"}
	ErrKeyAlreadyExists   = &Error{40971, 409, "KEY_ALREADY_EXISTS", "Key already exists"}
	ErrTooManyKeys        = &Error{40972, 409, "TOO_MANY_KEYS", "Too many keys"}
	ErrInvalidKey         = &Error{42271, 422, "INVALID_KEY", "Invalid or missing value for a field of key"}
	ErrKeyReferenceExists = &Error{42272, 422, "KEY_REFERENCE_EXISTS", "One or more references exist to the key"}
)

// Charter's own codes, for its governance API (/governance/...), the
// governance policy applied on register and the rate limit. They all end
// in 8x (40480, 40980, 42280–42285, 42980): Confluent numbers its core errors xxx0x–xxx1x, the schema
// exporters xxx5x–xxx6x (40450, 40950–40964) and the DEK registry xxx7x
// (40470–40472, 40971, 42271, 50070), so a Confluent client such as
// franz-go meets Charter's codes only as an unknown code with a message.
// confluentCodes in srerr_test.go lists the codes this was checked
// against.
var (
	// ErrGovernanceNotFound: no such ownership record, deprecation,
	// extension or dismissal.
	ErrGovernanceNotFound = &Error{40480, 404, "GOVERNANCE_RECORD_NOT_FOUND", "Governance record not found"}
	// ErrPolicyViolation: a governance rule at severity error refused the
	// registration; the message lists every error finding.
	ErrPolicyViolation = &Error{42280, 422, "POLICY_VIOLATION", "Registration refused by governance policy"}
	// ErrDeprecationExpired: the registration keeps or reintroduces a
	// field (or re-registers a version) whose deprecation has expired and
	// that no extension covers (rule DEPRECATION_EXPIRED).
	ErrDeprecationExpired = &Error{42281, 422, "DEPRECATION_EXPIRED", "Deprecated item has expired"}
	// ErrRemovedFieldReused: the registration brings back a removed field
	// name with another type, or reuses a removed Protobuf field number,
	// where the operator made those rules errors.
	ErrRemovedFieldReused = &Error{42282, 422, "REMOVED_FIELD_REUSED", "Removed field reused"}
	// ErrInvalidGovernance: a governance request is invalid (missing
	// team, unknown rule ID, bad severity, TTL out of range, unknown
	// field path).
	ErrInvalidGovernance = &Error{42283, 422, "INVALID_GOVERNANCE_REQUEST", "Invalid governance request"}
	// ErrRateLimited: the principal (or anonymous client) has used its
	// request budget (the auth file's rate_limit); answered 429 with
	// Retry-After.
	ErrRateLimited = &Error{42980, 429, "RATE_LIMITED", "Too many requests"}
	// ErrImportConflict: an import of a registry dump (POST /admin/import)
	// was refused, writing nothing: the registry is not empty and the
	// import does not merge, or the dump holds something the registry
	// holds otherwise; the message lists each conflict.
	ErrImportConflict = &Error{40980, 409, "IMPORT_CONFLICT", "The dump conflicts with what the registry holds"}
	// ErrInvalidDump: a registry dump cannot be read (malformed, an
	// unknown format or one written by a newer Charter, inconsistent).
	ErrInvalidDump = &Error{42284, 422, "INVALID_DUMP", "Invalid registry dump"}
	// ErrCompatibilityUndecided: the compatibility of a schema with an
	// earlier version could not be decided within the comparison's
	// bounds (JSON_SCHEMA_TOO_COMPLEX); nothing is registered.
	ErrCompatibilityUndecided = &Error{42285, 422, "COMPATIBILITY_UNDECIDED", "Compatibility could not be decided"}
)

var all = []*Error{
	ErrUnauthorized, ErrForbidden, ErrSubjectNotFound, ErrVersionNotFound, ErrSchemaNotFound,
	ErrSubjectSoftDeleted, ErrSubjectNotSoftDeleted, ErrVersionSoftDeleted,
	ErrVersionNotSoftDeleted, ErrSubjectConfigNotFound, ErrSubjectModeNotFound,
	ErrNotFound, ErrMethodNotAllowed, ErrIncompatibleSchema, ErrInvalidSchema,
	ErrInvalidVersion, ErrInvalidCompatibility, ErrInvalidMode,
	ErrOperationNotPermitted, ErrReferenceExists, ErrIDDoesNotMatch,
	ErrInvalidSubject, ErrSchemaTooLarge, ErrInvalidRuleSet,
	ErrUnprocessableEntity, ErrBadRequest, ErrPayloadTooLarge,
	ErrUnsupportedMediaType, ErrStore, ErrOperationTimeout,
	ErrRequestForwardingFailed, ErrUnknownLeader,
	ErrKeyNotFound, ErrKeyNotSoftDeleted, ErrKeySoftDeleted, ErrKeyAlreadyExists,
	ErrTooManyKeys, ErrInvalidKey, ErrKeyReferenceExists,
	ErrExporterNotFound, ErrInvalidExporterName, ErrInvalidExporterConfig, ErrInvalidExporterSubjects,
	ErrExporterAlreadyExists, ErrExporterAlreadyRunning, ErrExporterAlreadyStarting, ErrTooManyExporters,
	ErrGovernanceNotFound, ErrPolicyViolation, ErrDeprecationExpired,
	ErrRemovedFieldReused, ErrInvalidGovernance, ErrRateLimited,
	ErrImportConflict, ErrInvalidDump, ErrCompatibilityUndecided,
}

var byCode = func() map[int]*Error {
	m := make(map[int]*Error, len(all))
	for _, e := range all {
		m[e.Code] = e
	}
	m[40901] = ErrIncompatibleSchema // newer servers send 40901 for 409
	return m
}()

// All returns every error in the table, in code order of declaration.
func All() []*Error { return append([]*Error(nil), all...) }

// ForCode returns the sentinel for a Confluent error code, or nil when the
// code is not in the table.
func ForCode(code int) *Error { return byCode[code] }

// APIError is a sentinel with the message of one call. errors.Is(err,
// srerr.ErrSubjectNotFound) matches it on both server and client.
type APIError struct {
	Err     *Error
	Message string
	// Hint, when set, tells a person how to fix the call (shown by the CLI).
	Hint string
}

func (e *APIError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Err.Message
}

// Unwrap returns the sentinel.
func (e *APIError) Unwrap() error { return e.Err }

// New returns an APIError for sentinel with a formatted message.
func New(sentinel *Error, format string, args ...any) *APIError {
	return &APIError{Err: sentinel, Message: fmt.Sprintf(format, args...)}
}

// Code returns the Confluent code, HTTP status and message for any error.
// Errors outside the table map to 50001 with status 500; callers log them.
func Code(err error) (code, status int, message string) {
	var api *APIError
	if errors.As(err, &api) {
		return api.Err.Code, api.Err.Status, api.Error()
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code, e.Status, e.Message
	}
	return ErrStore.Code, ErrStore.Status, "Error in the backend data store"
}
