package compat

import "context"

// Summarizer is implemented by a Format that can keep the earlier
// versions of a subject in a compact [Summary] and check a new schema
// against many of them at once: a transitive level over a long subject
// then costs about the size of the new schema plus what changed between
// versions, instead of a full comparison with each of them, and holds no
// parsed schema.
//
// A Format that wraps another and changes how it compares (its CheckRead)
// must not pass the wrapped format's NewSummary on (by embedding it): the
// summary would compare as the wrapped format does.
type Summarizer interface {
	NewSummary() Summary
}

// Summary is a compact record of earlier schemas of one format, each
// added under a key (the registry's schema ID). Its Check gives exactly
// the Result that [CheckContext] gives comparing with each schema in
// turn: the same findings (rule IDs, paths, messages) in the same order.
// A Summary is safe for concurrent use.
type Summary interface {
	// Add records s, parsed by the Summary's format, under key and
	// reports whether it could: a schema the summary cannot represent
	// exactly (false) must be compared in full. Adding a key again
	// changes nothing and answers as the first time.
	Add(key int64, s Schema) bool
	// Known reports whether key was added, and what Add answered.
	Known(key int64) (summarized, known bool)
	// Check is CheckContext(ctx, format, level, next, previous) for
	// earlier versions each given by a summarized key (oldest first).
	// ok is false when next is a schema the summary cannot compare
	// with (compare in full then); the error is ctx's when it ended.
	Check(ctx context.Context, level Level, next Schema, previous []Keyed) (res Result, ok bool, err error)
	// Bytes estimates the heap bytes the summary holds.
	Bytes() int
}

// Keyed names an earlier version by the key its schema was added under.
type Keyed struct {
	Version int
	Key     int64
}
