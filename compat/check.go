package compat

import "context"

// Direction says which way a check reads: BACKWARD means the new schema is
// the reader of data written with an earlier one; FORWARD means an earlier
// schema is the reader of data written with the new one.
type Direction string

// The two reading directions.
const (
	DirBackward Direction = "BACKWARD"
	DirForward  Direction = "FORWARD"
)

// Previous is an earlier version of a subject to check against.
type Previous struct {
	Version int
	Schema  Schema
}

// Finding is a Violation found against one earlier version in one direction.
type Finding struct {
	Violation
	Direction Direction `json:"direction"`
	// Version is the earlier version the new schema was checked against.
	Version int `json:"version"`
}

// Result is the verdict of Check.
type Result struct {
	Level    Level
	Findings []Finding
}

// Compatible reports whether no check found a violation.
func (r Result) Compatible() bool { return len(r.Findings) == 0 }

// Check decides whether next may follow previous (oldest first) at level.
// Non-transitive levels compare with the latest previous version only;
// transitive levels with all of them. Every violation is returned, not just
// the first. NONE, or no previous version, is always compatible.
func Check(f Format, level Level, next Schema, previous []Previous) Result {
	res, _ := CheckContext(context.Background(), f, level, next, previous)
	return res
}

// ContextChecker is implemented by a Format whose CheckRead may take long
// on large schemas: CheckReadContext is CheckRead that gives up when ctx
// ends, returning ctx's error.
type ContextChecker interface {
	CheckReadContext(ctx context.Context, reader, writer Schema) ([]Violation, error)
}

// CheckContext is Check that stops when ctx ends (the client of a request
// has gone, say): before each comparison, and within one when f is a
// ContextChecker. It then returns ctx's error and no verdict.
func CheckContext(ctx context.Context, f Format, level Level, next Schema, previous []Previous) (Result, error) {
	res := Result{Level: level}
	if level == None || len(previous) == 0 {
		return res, nil
	}
	against := previous
	if !level.Transitive() {
		against = previous[len(previous)-1:]
	}
	read := func(reader, writer Schema) ([]Violation, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cc, ok := f.(ContextChecker); ok {
			return cc.CheckReadContext(ctx, reader, writer)
		}
		return f.CheckRead(reader, writer), nil
	}
	// Newest first: the latest version's findings are the most relevant.
	for i := len(against) - 1; i >= 0; i-- {
		p := against[i]
		if level.Backward() {
			vs, err := read(next, p.Schema)
			if err != nil {
				return Result{Level: level}, err
			}
			for _, v := range vs {
				res.Findings = append(res.Findings, Finding{Violation: v, Direction: DirBackward, Version: p.Version})
			}
		}
		if level.Forward() {
			vs, err := read(p.Schema, next)
			if err != nil {
				return Result{Level: level}, err
			}
			for _, v := range vs {
				res.Findings = append(res.Findings, Finding{Violation: v, Direction: DirForward, Version: p.Version})
			}
		}
	}
	return res, nil
}
