// Package lineage will hold the producer/consumer lineage graph over services, subjects, versions and fields (issue 5).
//
// It is empty until that work lands; the directory keeps the agreed top-level
// layout (see DESIGN.md).
package lineage
