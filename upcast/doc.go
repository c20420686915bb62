// Package upcast will hold reading old event versions as the current shape through chained upcasters, for replay jobs (issue 7).
//
// It is empty until that work lands; the directory keeps the agreed top-level
// layout (see DESIGN.md).
package upcast
