// Package pii will hold PII field tags, the personal-data detector and PII policy rules (issue 4).
//
// It is empty until that work lands; the directory keeps the agreed top-level
// layout (see DESIGN.md).
package pii
