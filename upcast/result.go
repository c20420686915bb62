package upcast

import (
	"github.com/charter-dev/charter/compat"
)

// Result is one event read as the target version. Value and Payload give
// it decoded or encoded; an event that was already at the target took the
// fast path (no decode at all), and decodes only if Value is called. A
// Result is for one goroutine at a time.
type Result struct {
	// EventID and Key are the event's ID and Key.
	EventID string
	Key     string
	Subject string
	// From is the writer version, To the target version.
	From, To int
	// Steps are the steps applied, the decoder's resolution included
	// (empty on the fast path). Shared with other results: do not modify.
	Steps []StepInfo

	chain  *Chain
	target *version
	fast   bool

	value   map[string]any
	payload []byte
}

// FastPath reports whether the event was already at the target version
// and was passed through without decoding.
func (r *Result) FastPath() bool { return r.fast }

// Value returns the event as a decoded value of the target version (see
// the package documentation for its form per format). On the fast path
// it decodes the payload on first call; a failure is an *Error with
// ErrDecode. The map is the caller's: the Result does not use it again.
func (r *Result) Value() (map[string]any, error) {
	if r.value != nil {
		return r.value, nil
	}
	p := r.chain.state.Load().plans[r.To]
	if p == nil || p.to != r.target {
		// The chain was rebuilt; decode with the version we were built with.
		dec, err := r.target.codec.decoder(r.target, r.target)
		if err != nil {
			return nil, r.err(err)
		}
		v, err := dec(r.payload)
		if err != nil {
			return nil, r.err(err)
		}
		r.value = v
		return v, nil
	}
	v, err := p.decode(r.payload)
	if err != nil {
		return nil, r.err(err)
	}
	r.value = v
	return v, nil
}

func (r *Result) err(err error) error {
	return &Error{Kind: ErrDecode, EventID: r.EventID, Subject: r.Subject, Version: r.From, Target: r.To, Err: err}
}

// Payload returns the event encoded with the target schema, without the
// wire-format header: the stored bytes themselves on the fast path.
// Encoding fails (ErrInvalidOutput) only when validation was off and a
// step produced a value that does not fit the target schema.
func (r *Result) Payload() ([]byte, error) {
	if r.payload != nil {
		return r.payload, nil
	}
	b, err := r.target.codec.encode(r.value, r.target)
	if err != nil {
		return nil, &Error{Kind: ErrInvalidOutput, EventID: r.EventID, Subject: r.Subject, Version: r.From, Target: r.To, Err: err}
	}
	r.payload = b
	return b, nil
}

// Framed returns Payload behind the Confluent wire-format header of the
// target schema's ID (and, for Protobuf, the message indexes), ready to
// be produced to a topic.
func (r *Result) Framed() ([]byte, error) {
	p, err := r.Payload()
	if err != nil {
		return nil, err
	}
	out := AppendWire(make([]byte, 0, len(p)+8), r.target.id)
	if r.target.typ == compat.Protobuf {
		ps := protoStateOf(r.target)
		idx, err := ps.file.MessageIndexes(string(ps.msg.FullName()))
		if err != nil {
			return nil, &Error{Kind: ErrInvalidOutput, EventID: r.EventID, Subject: r.Subject, Version: r.From, Target: r.To, Err: err}
		}
		out = AppendMessageIndexes(out, idx)
	}
	return append(out, p...), nil
}

// SchemaID returns the target schema's global ID.
func (r *Result) SchemaID() int64 { return r.target.id }
