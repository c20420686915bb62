package qualified

import "strings"

// DefaultContext is the API's name of the default context.
const DefaultContext = "."

// Split splits subject as Confluent's QualifiedSubject (without a
// tenant): ":.ctx:name" is context ".ctx" and name "name", ":.ctx" context
// ".ctx" and name "", ":*:name" context "*" and name "name", anything else
// context "." and the subject itself.
func Split(subject string) (ctx, name string) {
	switch {
	case strings.HasPrefix(subject, ":."):
		if i := strings.Index(subject[2:], ":"); i >= 0 {
			return subject[1 : 2+i], subject[2+i+1:]
		}
		return subject[1:], ""
	case strings.HasPrefix(subject, ":*:"):
		return "*", subject[3:]
	}
	return DefaultContext, subject
}

// Normalize returns subject as Confluent's QualifiedSubject.normalize has
// it: an explicit default context is removed (":.:name" is "name", ":.:"
// and ":." are ""), a context named without its closing colon gets it
// (":.ctx" is ":.ctx:"). Other subjects (":.ctx:name", ":*:name", "name")
// are returned as they are.
func Normalize(subject string) string {
	if !strings.HasPrefix(subject, ":.") {
		return subject
	}
	c, name := Split(subject)
	if c == DefaultContext {
		return name
	}
	if len(subject) == len(c)+1 {
		return subject + ":" // ":.ctx"
	}
	return subject
}

// In returns subject as it is stored when something in context c ("" or
// "." for the default one) names it (a reference's subject, an alias, a
// subject given under a context URL prefix): a qualified subject
// (":.x:name") is itself, normalised (":.:name" the plain "name"); an
// unqualified one is in c.
func In(c, subject string) string {
	if strings.HasPrefix(subject, ":.") {
		return Normalize(subject)
	}
	if c == "" || c == DefaultContext {
		return subject
	}
	return ":" + c + ":" + subject
}
