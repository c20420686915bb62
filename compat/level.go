package compat

import (
	"fmt"
	"strings"
)

// Level is a compatibility level as defined by Confluent Schema Registry
// ("Compatibility types", Confluent docs, schema-evolution).
type Level string

// The seven compatibility levels. BACKWARD is the registry default.
const (
	None               Level = "NONE"
	Backward           Level = "BACKWARD"
	BackwardTransitive Level = "BACKWARD_TRANSITIVE"
	Forward            Level = "FORWARD"
	ForwardTransitive  Level = "FORWARD_TRANSITIVE"
	Full               Level = "FULL"
	FullTransitive     Level = "FULL_TRANSITIVE"
)

// DefaultLevel is the level used when neither subject nor global config set one.
const DefaultLevel = Backward

// Levels lists every level in documentation order.
var Levels = []Level{None, Backward, BackwardTransitive, Forward, ForwardTransitive, Full, FullTransitive}

// ParseLevel accepts a level name in any letter case. It returns an error
// naming the accepted values for anything else.
func ParseLevel(s string) (Level, error) {
	l := Level(strings.ToUpper(strings.TrimSpace(s)))
	for _, known := range Levels {
		if l == known {
			return l, nil
		}
	}
	return "", fmt.Errorf("invalid compatibility level %q: want one of %s", s, joinLevels())
}

func joinLevels() string {
	names := make([]string, len(Levels))
	for i, l := range Levels {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// Transitive reports whether the level compares against every earlier
// version rather than only the latest.
func (l Level) Transitive() bool {
	return strings.HasSuffix(string(l), "_TRANSITIVE")
}

// Backward reports whether the new schema must read data written with
// earlier schemas.
func (l Level) Backward() bool {
	return l == Backward || l == BackwardTransitive || l == Full || l == FullTransitive
}

// Forward reports whether earlier schemas must read data written with the
// new schema.
func (l Level) Forward() bool {
	return l == Forward || l == ForwardTransitive || l == Full || l == FullTransitive
}
