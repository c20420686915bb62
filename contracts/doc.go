// Package contracts will hold consumer-driven contracts: Pact message pacts checked against proposed schemas (issue 5).
//
// It is empty until that work lands; the directory keeps the agreed top-level
// layout (see DESIGN.md).
package contracts
