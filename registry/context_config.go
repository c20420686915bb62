package registry

import (
	"context"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/qualified"
)

// Config and mode resolution across contexts, as Confluent's
// InMemoryCache.config and .mode: a subject's own setting, else its
// context's level (the "" key for the default context, ":.ctx:" for
// .ctx), else the ":.__GLOBAL:" context's, else the server default.
// Charter merges configs field by field down that chain (each level sets
// what it sets), as it always merged a subject's config over the global
// one; modes are taken from the first level that has one.

// GlobalContextKey is the config and mode key of Confluent's .__GLOBAL
// context, below every context's own level.
const GlobalContextKey = ":.__GLOBAL:"

// contextLevel returns the config and mode key of subject's context level:
// "" for a subject of the default context, ":.ctx:" for one of .ctx.
func contextLevel(subject string) string {
	c := ContextOf(subject)
	if c == "" {
		return ""
	}
	return ":" + c + ":"
}

// IsContextLevel reports whether a config or mode key names a context
// level (the default context's "", ":.ctx:" or ":.ctx", ":.__GLOBAL:")
// rather than a subject.
func IsContextLevel(key string) bool {
	_, name := qualified.Split(key)
	return key == "" || (ContextOf(key) != "" && name == "")
}

// levelsBelow returns the keys whose configs apply to key below its own,
// most general first: none for ":.__GLOBAL:", ":.__GLOBAL:" for a context
// level, ":.__GLOBAL:" and the subject's context level for a subject.
func levelsBelow(key string) []string {
	switch {
	case key == GlobalContextKey:
		return nil
	case IsContextLevel(key):
		return []string{GlobalContextKey}
	}
	return []string{GlobalContextKey, contextLevel(key)}
}

// levelKey returns the stored key of a config or mode subject: a context
// level named ":.ctx" is ":.ctx:", the default context's (":.:") is "",
// ":.:name" is "name"; any other subject is itself.
func levelKey(subject string) string {
	subject = NormalizeSubject(subject)
	if subject == ":." {
		return ""
	}
	if IsContextLevel(subject) && subject != "" && !strings.HasSuffix(subject, ":") {
		return subject + ":"
	}
	return subject
}

// inheritedConfig returns the config key inherits: the server default
// (level BACKWARD) with each level below key merged over it.
func inheritedConfig(ctx context.Context, tx Tx, key string) (Config, error) {
	base := Config{Compatibility: compat.DefaultLevel}
	for _, l := range levelsBelow(key) {
		c, ok, err := storedConfig(ctx, tx, l)
		if err != nil {
			return Config{}, err
		}
		if ok {
			base = mergeConfig(base, c)
		}
	}
	return base, nil
}

// inheritedMode returns the mode key inherits: that of the nearest level
// below it that has one, READWRITE when none has.
func inheritedMode(ctx context.Context, tx Tx, key string) (Mode, error) {
	levels := levelsBelow(key)
	for i := len(levels) - 1; i >= 0; i-- {
		m, ok, err := storedMode(ctx, tx, levels[i])
		if err != nil || ok {
			return m, err
		}
	}
	return ModeReadWrite, nil
}
