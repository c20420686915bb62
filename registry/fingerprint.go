package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/charter-dev/charter/compat"
)

// Fingerprint identifies a schema's content: the hex SHA-256 of its type,
// stored text (canonical, or normalized when the client asked for it),
// references in order, metadata and ruleSet (compacted JSON). Two
// registrations with equal fingerprints in one schema context get the same
// ID there, as in Confluent, where identity covers text, references,
// metadata and rules.
func Fingerprint(t compat.SchemaType, text string, refs []Reference, metadata, ruleSet json.RawMessage) string {
	h := sha256.New()
	field := func(s string) {
		// Length-prefixed so that no two field lists hash alike.
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field("charter-schema-v1")
	field(string(t))
	field(text)
	field(strconv.Itoa(len(refs)))
	for _, r := range refs {
		field(r.Name)
		field(r.Subject)
		field(strconv.Itoa(r.Version))
	}
	field(string(compactJSON(metadata)))
	field(string(compactJSON(ruleSet)))
	return hex.EncodeToString(h.Sum(nil))
}

// compactJSON returns raw re-encoded with object keys sorted and no
// insignificant white space; nil, empty and JSON null all become nil, so
// "absent" has one spelling and key order does not change identity.
func compactJSON(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// copyFingerprint is the stored fingerprint of a schema imported under an
// explicit ID while the same content already holds another ID (Confluent
// accepts that in IMPORT mode since 7.0.4): the content's fingerprint
// plus the ID, so that the store's one-schema-per-fingerprint index keeps
// answering the first ID for the content, and each copy stays unique.
func copyFingerprint(fp string, id int64) string {
	return fp + "#" + strconv.FormatInt(id, 10)
}

// contentFingerprint is st's fingerprint computed from its content, the
// same for every copy of it (see copyFingerprint).
func contentFingerprint(st Schema) string {
	return Fingerprint(st.Type, st.Text, st.References, st.Metadata, st.RuleSet)
}
