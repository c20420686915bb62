// Package web will hold the server-rendered web UI for subjects, diffs, deprecations, lineage and PII maps.
//
// It is empty until that work lands; the directory keeps the agreed top-level
// layout (see DESIGN.md).
package web
