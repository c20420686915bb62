package dump

import (
	"fmt"
	"strings"
)

// SubjectContext returns the schema context of a subject as a dump names
// it: ".ctx" for ":.ctx:name" (and ":.ctx"), "" (the default context) for
// any other; the same as registry.ContextOf, which this package cannot
// import.
func SubjectContext(subject string) string {
	rest, ok := strings.CutPrefix(subject, ":.")
	if !ok {
		return ""
	}
	c, _, _ := strings.Cut(rest, ":")
	if c == "" {
		return ""
	}
	return "." + c
}

// contextMarks checks the ID allocation state of each context (the
// default one's fields and Contexts) and returns each context's mark.
func (d *Dump) contextMarks() (map[string]int64, error) {
	all := append([]ContextIDs{{MaxSchemaID: d.MaxSchemaID, SchemaIDFloor: d.SchemaIDFloor,
		RetiredSchemaIDs: d.RetiredSchemaIDs}}, d.Contexts...)
	marks := make(map[string]int64, len(all))
	for i, c := range all {
		in := inContext(c.Context)
		switch _, dup := marks[c.Context]; {
		case i > 0 && (c.Context == "" || !strings.HasPrefix(c.Context, ".")):
			return nil, fmt.Errorf("read dump: context %q: want a name starting with '.'", c.Context)
		case dup:
			return nil, fmt.Errorf("read dump: context %q is listed twice", c.Context)
		case c.MaxSchemaID < 0:
			return nil, fmt.Errorf("read dump: maxSchemaId %d%s: want 0 or more", c.MaxSchemaID, in)
		case c.SchemaIDFloor < 0 || c.SchemaIDFloor > c.MaxSchemaID:
			return nil, fmt.Errorf("read dump: schemaIdFallbackFloor %d%s: want 0 to maxSchemaId %d", c.SchemaIDFloor, in, c.MaxSchemaID)
		}
		for _, id := range c.RetiredSchemaIDs {
			if id < 1 || id > c.MaxSchemaID {
				return nil, fmt.Errorf("read dump: retired schema id %d%s: want 1 to maxSchemaId %d", id, in, c.MaxSchemaID)
			}
		}
		marks[c.Context] = c.MaxSchemaID
	}
	return marks, nil
}

// inContext names context c in a message: "" for the default one.
func inContext(c string) string {
	if c == "" {
		return ""
	}
	return " in context " + c
}
