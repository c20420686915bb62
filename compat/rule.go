package compat

// Rule is one compatibility rule: a stable SCREAMING_SNAKE ID prefixed by
// its format (AVRO_, PROTO_, JSON_) and a one-line purpose. A rule's ID
// never changes once released. Each format package declares its rules as
// named constants and lists them in its Rules function; package
// compat/formats lists the formats.
type Rule struct {
	ID      string
	Format  SchemaType
	Purpose string
	// Source cites the specification section the rule comes from.
	Source string
	// Profiles names the rule profiles that run the rule, for a format
	// whose rules come in profiles (see [Profiled]); nil when the rule
	// always runs.
	Profiles []string
}
