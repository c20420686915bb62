// Package pactinterop holds the real Pact interop test of package
// contracts: a Go consumer test writes message pact files with
// github.com/pact-foundation/pact-go/v2's asynchronous message DSL (V3 and
// V4), and contracts verifies those files against a compatible and a
// breaking schema change.
//
// It is a separate Go module, so pact-go (cgo, libpact_ffi) never enters
// the main module's build list or the charter binary's import graph, which
// keeps building with CGO_ENABLED=0. The module replaces
// github.com/charter-dev/charter with the work tree (../..).
//
// Running it needs the native libpact_ffi 0.4.28 in /usr/local/lib (see
// /work/notes/ci-pact.md for the install steps; never `pact-go install`,
// which downloads). `go test ./...` in this directory skips with a message
// when the library is absent, or fails when CI=true; when it is present the
// test re-runs itself with -tags pactffi, which links pact-go.
package pactinterop
