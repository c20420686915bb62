package governance

import (
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

// normName folds a field name for envelope matching: lower case, without
// "_", "-" and ".".
func normName(s string) string {
	return strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(s))
}

// envelopeFindings checks that the envelope record carries one field of
// each role (EVENT_ENVELOPE_INCOMPLETE).
func envelopeFindings(subject string, t compat.SchemaType, fields []compat.Field, cfg *Envelope) []rule.Finding {
	e := Envelope{}
	if cfg != nil {
		e = *cfg
	}
	roles := []struct {
		role  string
		names []string
	}{
		{"an event ID", pick(e.EventID, DefaultEventIDNames)},
		{"an event type", pick(e.EventType, DefaultEventTypeNames)},
		{"a schema version", pick(e.SchemaVersion, DefaultSchemaVersionNames)},
		{"an occurrence time", pick(e.OccurredAt, DefaultOccurredAtNames)},
	}
	have := map[string]bool{}
	for _, f := range childrenOf(t, fields, e.Path) {
		have[normName(f.Name)] = true
	}
	var missing, hints []string
	for _, r := range roles {
		found := false
		for _, n := range r.names {
			if have[normName(n)] {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, r.role)
			hints = append(hints, r.names[0])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	where := "the top-level record"
	if e.Path != "" {
		where = "record " + Display(e.Path)
	}
	return []rule.Finding{{RuleID: RuleEnvelopeIncomplete, Subject: subject, Path: e.Path,
		Message: fmt.Sprintf("the event envelope (%s) lacks %s", where, joinAnd(missing)),
		Hint:    fmt.Sprintf("add %s, or configure the accepted names in the policy's envelope settings", joinAnd(quoteAll(hints)))}}
}

func pick(configured, def []string) []string {
	if len(configured) > 0 {
		return configured
	}
	return def
}

// Words that mark a binary field as small (a hash, a key, a signature) or
// as a reference to data stored elsewhere (EVENT_INLINE_BINARY passes
// them).
var smallBinaryWords = map[string]bool{
	"checksum": true, "hash": true, "digest": true, "sha": true, "sha1": true, "sha256": true, "sha512": true,
	"md5": true, "crc": true, "crc32": true, "hmac": true, "mac": true, "signature": true, "sig": true,
	"fingerprint": true, "key": true, "iv": true, "nonce": true, "salt": true, "uuid": true, "id": true,
	"ref": true, "reference": true, "url": true, "uri": true, "location": true, "etag": true, "token": true,
}

// binaryType reports whether a field's type holds unbounded bytes.
func binaryType(f compat.Field) bool {
	t := nonNull(f.Type)
	switch t {
	case "bytes", "repeated bytes":
		return true
	}
	if strings.HasPrefix(t, "string") && strings.EqualFold(f.Props["contentEncoding"], "base64") {
		return true
	}
	return false
}

// inlineBinaryFindings reports bytes fields whose names do not say they
// are small or references (EVENT_INLINE_BINARY).
func inlineBinaryFindings(subject string, fields []compat.Field) []rule.Finding {
	var out []rule.Finding
	for _, f := range uniqueFields(fields) {
		if !binaryType(f) {
			continue
		}
		small := false
		for _, w := range pii.Tokens(f.Name) {
			if smallBinaryWords[w] {
				small = true
				break
			}
		}
		if small {
			continue
		}
		out = append(out, rule.Finding{RuleID: RuleInlineBinary, Subject: subject, Path: f.Path,
			Message: fmt.Sprintf("field %s carries binary data (%s) inline in the event", Display(f.Path), f.Type),
			Hint:    fmt.Sprintf("store the payload outside the event (object storage) and carry a reference and a checksum, e.g. %s_url and %s_sha256", f.Name, f.Name)})
	}
	return out
}

func joinAnd(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "`" + w + "`"
	}
	return out
}
