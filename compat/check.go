package compat

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
	res := Result{Level: level}
	if level == None || len(previous) == 0 {
		return res
	}
	against := previous
	if !level.Transitive() {
		against = previous[len(previous)-1:]
	}
	// Newest first: the latest version's findings are the most relevant.
	for i := len(against) - 1; i >= 0; i-- {
		p := against[i]
		if level.Backward() {
			for _, v := range f.CheckRead(next, p.Schema) {
				res.Findings = append(res.Findings, Finding{Violation: v, Direction: DirBackward, Version: p.Version})
			}
		}
		if level.Forward() {
			for _, v := range f.CheckRead(p.Schema, next) {
				res.Findings = append(res.Findings, Finding{Violation: v, Direction: DirForward, Version: p.Version})
			}
		}
	}
	return res
}
