package upcast

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
)

// Event is one stored event as a replay job reads it. The job fills what
// its store knows; an Envelope fills the rest from headers or fields.
//
// The writer version is found, in this order, from Version, from SchemaID,
// or from Payload's Confluent wire-format header (magic byte 0, then the
// 4-byte big-endian schema ID, then for Protobuf the message indexes):
// when Version and SchemaID are both zero the payload must carry that
// header. When either is set, Payload is the bare encoding.
type Event struct {
	// ID identifies the event in errors and reports (an offset, an event
	// ID); may be empty.
	ID string
	// Key orders events in Replay: events with equal keys are handled in
	// source order. Empty keys are not ordered.
	Key string
	// Subject is the registry subject of the event's type; when empty the
	// Upcaster's WithSubject, else the subject of the schema ID.
	Subject string
	// Version is the writer's version of Subject (0: unknown).
	Version int
	// SchemaID is the writer's global schema ID (0: unknown).
	SchemaID int64
	// Headers are the record's headers (Kafka headers as strings).
	Headers map[string]string
	// Payload is the stored bytes. They are never modified: a failed
	// event keeps them for re-drive.
	Payload []byte
}

// MagicByte starts a Confluent wire-format payload.
const MagicByte = 0

// ParseWire splits a Confluent wire-format payload (magic byte 0, 4-byte
// big-endian schema ID) into the schema ID and the rest. The rest of a
// Protobuf payload still starts with its message indexes (see
// ParseMessageIndexes).
func ParseWire(b []byte) (id int64, rest []byte, err error) {
	if len(b) < 5 {
		return 0, nil, fmt.Errorf("payload of %s is too short for the wire format (magic byte and 4-byte schema ID)", rule.Plural(len(b), "byte"))
	}
	if b[0] != MagicByte {
		return 0, nil, fmt.Errorf("payload starts with byte 0x%02x, not the wire format's magic byte 0x00", b[0])
	}
	return int64(binary.BigEndian.Uint32(b[1:5])), b[5:], nil
}

// AppendWire appends the wire-format header for schema id to dst.
func AppendWire(dst []byte, id int64) []byte {
	return binary.BigEndian.AppendUint32(append(dst, MagicByte), uint32(id))
}

// maxMessageIndexes bounds the message-index path length (nesting depth).
const maxMessageIndexes = 100

// ParseMessageIndexes reads the Protobuf message-index path that follows
// the schema ID in the wire format: a count and the indexes, all zig-zag
// varints; the single byte 0 means [0], the first message. It returns the
// indexes and the message bytes after them.
func ParseMessageIndexes(b []byte) ([]int, []byte, error) {
	n, k := binary.Varint(b)
	if k <= 0 {
		return nil, nil, errors.New("message indexes: truncated or overlong count")
	}
	b = b[k:]
	if n == 0 {
		return []int{0}, b, nil
	}
	if n < 0 || n > maxMessageIndexes {
		return nil, nil, fmt.Errorf("message indexes: count %d is out of range", n)
	}
	idx := make([]int, n)
	for i := range idx {
		v, k := binary.Varint(b)
		if k <= 0 {
			return nil, nil, fmt.Errorf("message indexes: index %d of %d is truncated", i+1, n)
		}
		if v < 0 || v > 1<<20 {
			return nil, nil, fmt.Errorf("message indexes: index %d is out of range", v)
		}
		idx[i] = int(v)
		b = b[k:]
	}
	return idx, b, nil
}

// AppendMessageIndexes appends the wire-format message-index path.
func AppendMessageIndexes(dst []byte, idx []int) []byte {
	if len(idx) == 0 || (len(idx) == 1 && idx[0] == 0) {
		return append(dst, 0)
	}
	dst = binary.AppendVarint(dst, int64(len(idx)))
	for _, i := range idx {
		dst = binary.AppendVarint(dst, int64(i))
	}
	return dst
}

// Envelope fills an event's Subject, Version or SchemaID, and Payload
// from what the event carries (headers, an outer JSON document). It is
// called once per event before the upcast; an error fails the event with
// ErrDecode.
type Envelope interface {
	Open(ev *Event) error
}

// EnvelopeFunc adapts a function to Envelope.
type EnvelopeFunc func(ev *Event) error

// Open calls f.
func (f EnvelopeFunc) Open(ev *Event) error { return f(ev) }

// HeaderEnvelope reads the event type and version from two headers, for
// example "event-type: OrderPlaced" and "event-version: 2". Subject maps
// the type to a subject (default: the type itself). A missing header is
// an error; the payload is the bare encoding.
type HeaderEnvelope struct {
	TypeHeader, VersionHeader string
	Subject                   func(eventType string) string
}

// Open implements Envelope.
func (h HeaderEnvelope) Open(ev *Event) error {
	t, ok := ev.Headers[h.TypeHeader]
	if !ok || t == "" {
		return fmt.Errorf("header %q is missing", h.TypeHeader)
	}
	vs, ok := ev.Headers[h.VersionHeader]
	if !ok {
		return fmt.Errorf("header %q is missing", h.VersionHeader)
	}
	v, err := parseVersion(vs)
	if err != nil {
		return fmt.Errorf("header %q: %w", h.VersionHeader, err)
	}
	ev.Subject = mapSubject(h.Subject, t)
	ev.Version = v
	return nil
}

// FieldEnvelope reads a JSON envelope whose members carry the type, the
// version and the event itself, such as
// {"type": "OrderPlaced", "version": 2, "data": {...}}. The version may be
// a number or a string ("2", "v2"). Subject maps the type to a subject
// (default: the type itself).
type FieldEnvelope struct {
	TypeField, VersionField, DataField string
	Subject                            func(eventType string) string
}

// Open implements Envelope.
func (f FieldEnvelope) Open(ev *Event) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(ev.Payload, &doc); err != nil {
		return fmt.Errorf("envelope: %w", err)
	}
	var t string
	if err := json.Unmarshal(doc[f.TypeField], &t); err != nil || t == "" {
		return fmt.Errorf("envelope: member %q is missing or not a string", f.TypeField)
	}
	raw, ok := doc[f.VersionField]
	if !ok {
		return fmt.Errorf("envelope: member %q is missing", f.VersionField)
	}
	v, err := parseVersion(strings.Trim(string(raw), `"`))
	if err != nil {
		return fmt.Errorf("envelope: member %q: %w", f.VersionField, err)
	}
	data, ok := doc[f.DataField]
	if !ok {
		return fmt.Errorf("envelope: member %q is missing", f.DataField)
	}
	ev.Subject = mapSubject(f.Subject, t)
	ev.Version = v
	ev.Payload = data
	return nil
}

// CloudEvents reads CloudEvents 1.0 events (cloudevents.io, spec v1.0.2)
// in either mode of the Kafka protocol binding:
//   - binary mode: the headers ce_type and ce_dataschema (or ce-type,
//     ce-dataschema) describe the payload, which is the event data;
//   - structured mode: the payload is a JSON document with "specversion",
//     "type", "dataschema" and "data" (JSON data) or "data_base64".
//
// The subject comes from dataschema when it is a registry URL
// ".../subjects/{subject}/versions/{n}" (which also gives the version),
// otherwise from Subject(type) (default: the type itself). A dataschema
// ".../schemas/ids/{id}" gives the schema ID. Without a dataschema, the
// data must carry the Confluent wire-format header.
type CloudEvents struct {
	Subject func(eventType string) string
}

// Open implements Envelope.
func (c CloudEvents) Open(ev *Event) error {
	t, schema, binaryMode := ceHeader(ev.Headers, "type"), ceHeader(ev.Headers, "dataschema"), false
	if t != "" {
		binaryMode = true
	}
	if !binaryMode {
		var doc struct {
			SpecVersion string          `json:"specversion"`
			Type        string          `json:"type"`
			DataSchema  string          `json:"dataschema"`
			Data        json.RawMessage `json:"data"`
			DataBase64  *string         `json:"data_base64"`
		}
		if err := json.Unmarshal(ev.Payload, &doc); err != nil {
			return fmt.Errorf("cloudevent: no ce_type header and the payload is not a structured-mode JSON event: %w", err)
		}
		if doc.SpecVersion == "" || doc.Type == "" {
			return errors.New(`cloudevent: structured-mode event without "specversion" or "type"`)
		}
		t, schema = doc.Type, doc.DataSchema
		switch {
		case doc.DataBase64 != nil:
			b, err := base64.StdEncoding.DecodeString(*doc.DataBase64)
			if err != nil {
				return fmt.Errorf("cloudevent: data_base64: %w", err)
			}
			ev.Payload = b
		case len(doc.Data) > 0:
			ev.Payload = doc.Data
		default:
			return errors.New("cloudevent: no data")
		}
	}
	ev.Subject = mapSubject(c.Subject, t)
	if schema == "" {
		return nil
	}
	subject, version, id, err := parseDataSchema(schema)
	if err != nil {
		return fmt.Errorf("cloudevent: %w", err)
	}
	if subject != "" {
		ev.Subject = subject
	}
	ev.Version, ev.SchemaID = version, id
	return nil
}

func ceHeader(h map[string]string, name string) string {
	if v, ok := h["ce_"+name]; ok {
		return v
	}
	return h["ce-"+name]
}

// parseDataSchema reads a registry URL: .../subjects/{s}/versions/{n} or
// .../schemas/ids/{id}.
func parseDataSchema(s string) (subject string, version int, id int64, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", 0, 0, fmt.Errorf("dataschema %q: %w", s, err)
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	for i := 0; i+2 < len(segs); i++ {
		switch {
		case segs[i] == "subjects" && segs[i+2] == "versions" && i+3 < len(segs):
			subj, err := url.PathUnescape(segs[i+1])
			if err != nil {
				break
			}
			v, err := parseVersion(segs[i+3])
			if err != nil {
				return "", 0, 0, fmt.Errorf("dataschema %q: %w", s, err)
			}
			return subj, v, 0, nil
		case segs[i] == "schemas" && segs[i+1] == "ids":
			n, err := strconv.ParseInt(segs[i+2], 10, 64)
			if err != nil || n <= 0 {
				return "", 0, 0, fmt.Errorf("dataschema %q: schema ID %q is not a positive number", s, segs[i+2])
			}
			return "", 0, n, nil
		}
	}
	return "", 0, 0, fmt.Errorf("dataschema %q is not a registry URL (.../subjects/{subject}/versions/{n} or .../schemas/ids/{id})", s)
}

// parseVersion reads "2" or "v2".
func parseVersion(s string) (int, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("version %q is not a positive number", s)
	}
	return n, nil
}

func mapSubject(f func(string) string, t string) string {
	if f == nil {
		return t
	}
	return f(t)
}
