package upcast

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"
)

// Sample is one line of a verify samples file (JSON Lines, one object per
// line; blank lines and lines starting with "#" are skipped):
//
//	{"id": "o-1", "version": 1, "value": {"id": "o-1", "totalCents": 1234}}
//	{"id": "o-2", "schemaId": 7, "value": {...}}
//	{"id": "o-3", "payload": "AAAAAAc…"}
//
// id names the event in reports (default "line N"). The writer is given by
// version or schemaId. value is the event as JSON in the shape of that
// version (Avro: fields by name, decimals as numbers or strings, union
// values bare or wrapped as {"string": "x"}; Protobuf: the protobuf JSON
// mapping). payload is instead the stored bytes, base64: with version or
// schemaId they are the bare encoding, without them they must carry the
// Confluent wire-format header. subject overrides the subject.
type Sample struct {
	ID       string            `json:"id"`
	Subject  string            `json:"subject,omitempty"`
	Version  int               `json:"version,omitempty"`
	SchemaID int64             `json:"schemaId,omitempty"`
	Value    json.RawMessage   `json:"value,omitempty"`
	Payload  []byte            `json:"payload,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	// Line is the sample's line number in its file.
	Line int `json:"-"`
}

// maxSampleLine bounds one JSONL line (16 MiB).
const maxSampleLine = 16 << 20

// ReadSamples reads a samples file (see Sample). The error names the
// line: `line 3: value and payload are both set`.
func ReadSamples(r io.Reader) ([]Sample, error) {
	var out []Sample
	ids := map[string]int{}
	err := eachLine(r, func(n int, line []byte) error {
		var s Sample
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		s.Line = n
		if s.ID == "" {
			s.ID = fmt.Sprintf("line %d", n)
		}
		if prev, dup := ids[s.ID]; dup {
			return fmt.Errorf("line %d: id %q is already used on line %d", n, s.ID, prev)
		}
		ids[s.ID] = n
		hasValue := len(s.Value) > 0 && string(s.Value) != "null"
		switch {
		case hasValue && s.Payload != nil:
			return fmt.Errorf("line %d: value and payload are both set; give one", n)
		case !hasValue && s.Payload == nil:
			return fmt.Errorf("line %d: neither value nor payload is set", n)
		case hasValue && s.Version == 0 && s.SchemaID == 0:
			return fmt.Errorf("line %d: a value needs its version or schemaId", n)
		case s.Version < 0 || s.SchemaID < 0:
			return fmt.Errorf("line %d: version and schemaId must be positive", n)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// ReadExpected reads an expected-outputs file: JSON Lines of
// {"id": "o-1", "value": {...}}, the value each sample must upcast to.
func ReadExpected(r io.Reader) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := eachLine(r, func(n int, line []byte) error {
		var e struct {
			ID    string          `json:"id"`
			Value json.RawMessage `json:"value"`
		}
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&e); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if e.ID == "" || len(e.Value) == 0 {
			return fmt.Errorf("line %d: want {\"id\": …, \"value\": …}", n)
		}
		if _, dup := out[e.ID]; dup {
			return fmt.Errorf("line %d: id %q is given twice", n, e.ID)
		}
		out[e.ID] = e.Value
		return nil
	})
	return out, err
}

func eachLine(r io.Reader, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxSampleLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if err := f(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}

// Report is the result of Verify.
type Report struct {
	Subject string `json:"subject"`
	Target  int    `json:"target"`
	// Versions has one entry per version of the subject, ascending, with
	// its path to the target and how its samples fared.
	Versions []VersionReport `json:"versions"`
	// Failures lists every failed sample, in sample order.
	Failures []SampleFailure `json:"failures"`
	// Unmatched lists expected IDs no sample has.
	Unmatched []string `json:"unmatched,omitempty"`
	Samples   int      `json:"samples"`
	OK        int      `json:"ok"`
}

// VersionReport is one version's line of a Report.
type VersionReport struct {
	Version int      `json:"version"`
	Path    []string `json:"path"`
	Samples int      `json:"samples"`
	OK      int      `json:"ok"`
	Failed  int      `json:"failed"`
}

// SampleFailure is one sample that failed: its upcast failed (Kind is the
// *Error's kind), or its output differs from the expected value (Kind
// "differs from expected").
type SampleFailure struct {
	ID      string   `json:"id"`
	Line    int      `json:"line"`
	Version int      `json:"version,omitempty"`
	Step    string   `json:"step,omitempty"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Diff    []string `json:"diff,omitempty"`
}

// Failed reports whether any sample failed or an expected value had no
// sample.
func (r *Report) Failed() bool { return len(r.Failures) > 0 || len(r.Unmatched) > 0 }

// VerifyOption configures Verify.
type VerifyOption func(*verifyOptions)

type verifyOptions struct {
	progress func(Progress)
	every    time.Duration
	workers  int
}

// VerifyProgress reports progress as Replay does.
func VerifyProgress(f func(Progress), every time.Duration) VerifyOption {
	return func(o *verifyOptions) { o.progress, o.every = f, every }
}

// ErrDiffers is the Kind of a sample whose output differs from its
// expected value.
var ErrDiffers = errors.New("differs from expected")

// Verify is the dry run of an upcast: it builds subject's chain (a gap is
// returned as the error), upcasts every sample to the target, validates
// each output against the target schema, compares it with expected[id]
// when given, and reports per version. The Upcaster should validate
// (ValidateSteps names the step at fault best).
func Verify(ctx context.Context, u *Upcaster, subject string, samples []Sample, expected map[string]json.RawMessage, opts ...VerifyOption) (*Report, error) {
	o := verifyOptions{workers: 4, every: 200 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := u.Chain(ctx, subject)
	if err != nil {
		return nil, err
	}
	st := c.state.Load()
	rep := &Report{Subject: subject, Target: st.target.num, Samples: len(samples), Failures: []SampleFailure{}}
	byVersion := map[int]*VersionReport{}
	for _, n := range st.order {
		vr := &VersionReport{Version: n, Path: []string{}}
		for _, s := range st.plans[n].infos {
			vr.Path = append(vr.Path, s.String())
		}
		byVersion[n] = vr
	}
	bySample := map[string]*Sample{}
	events := make([]Event, 0, len(samples))
	for i := range samples {
		s := &samples[i]
		bySample[s.ID] = s
		sub := s.Subject
		if sub == "" {
			sub = subject
		}
		events = append(events, Event{ID: s.ID, Subject: sub, Version: s.Version, SchemaID: s.SchemaID, Headers: s.Headers, Payload: s.Payload})
	}
	var mu sync.Mutex
	failures := map[string]SampleFailure{}
	fail := func(f SampleFailure) {
		mu.Lock()
		failures[f.ID] = f
		mu.Unlock()
	}
	count := func(version int, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		vr := byVersion[version]
		if vr == nil {
			vr = &VersionReport{Version: version}
			byVersion[version] = vr
		}
		vr.Samples++
		if ok {
			vr.OK++
		} else {
			vr.Failed++
		}
	}
	sink := func(ctx context.Context, r *Result) error {
		s := bySample[r.EventID]
		got, err := r.Value()
		if err != nil {
			fail(failureOf(s, err))
			count(r.From, false)
			return nil
		}
		if raw, ok := expected[s.ID]; ok {
			want, err := r.target.codec.fromJSON(raw, r.target)
			if err != nil {
				fail(SampleFailure{ID: s.ID, Line: s.Line, Version: r.From, Kind: "bad expected value", Message: err.Error()})
				count(r.From, false)
				return nil
			}
			g, w := r.target.codec.plain(got, r.target), r.target.codec.plain(want, r.target)
			if !Equal(g, w) {
				f := SampleFailure{ID: s.ID, Line: s.Line, Version: r.From, Kind: ErrDiffers.Error(), Diff: Diff(g, w, 5)}
				if n := len(r.Steps); n > 0 {
					f.Step = r.Steps[n-1].String()
				}
				f.Message = "output differs from the expected value"
				fail(f)
				count(r.From, false)
				return nil
			}
		}
		count(r.From, true)
		return nil
	}
	dead := func(ctx context.Context, ev Event, e *Error) error {
		s := bySample[ev.ID]
		fail(failureOf(s, e))
		count(e.Version, false)
		return nil
	}
	// Values go through UpcastValue; payloads through Replay.
	var withPayload []Event
	for i, ev := range events {
		s := &samples[i]
		if s.Payload != nil {
			withPayload = append(withPayload, ev)
			continue
		}
		r, err := verifyValue(ctx, u, c, s)
		if err != nil {
			var ue *Error
			if errors.As(err, &ue) {
				_ = dead(ctx, ev, ue)
			} else {
				fail(failureOf(s, err))
				count(s.Version, false)
			}
			continue
		}
		_ = sink(ctx, r)
	}
	ropts := []ReplayOption{WithConcurrency(o.workers), WithDeadLetter(dead), WithTotal(int64(len(withPayload)))}
	if o.progress != nil {
		ropts = append(ropts, WithProgress(o.progress, o.every))
	}
	if _, err := Replay(ctx, u, Events(withPayload), sink, ropts...); err != nil {
		return nil, err
	}
	for _, s := range samples {
		if f, ok := failures[s.ID]; ok {
			rep.Failures = append(rep.Failures, f)
		}
	}
	for id := range expected {
		if bySample[id] == nil {
			rep.Unmatched = append(rep.Unmatched, id)
		}
	}
	sort.Strings(rep.Unmatched)
	for _, vr := range byVersion {
		rep.Versions = append(rep.Versions, *vr)
		rep.OK += vr.OK
	}
	slices.SortFunc(rep.Versions, func(a, b VersionReport) int { return a.Version - b.Version })
	return rep, nil
}

// verifyValue upcasts a sample given as a JSON value.
func verifyValue(ctx context.Context, u *Upcaster, c *Chain, s *Sample) (*Result, error) {
	st := c.state.Load()
	w := st.versions[s.Version]
	if s.Version == 0 {
		w = st.byID[s.SchemaID]
	}
	if w == nil {
		return nil, &Error{Kind: ErrUnknownVersion, EventID: s.ID, Subject: c.subject, Version: s.Version, SchemaID: s.SchemaID,
			Err: fmt.Errorf("%s has no such version (versions %v)", c.subject, st.order)}
	}
	v, err := w.codec.fromJSON(s.Value, w)
	if err != nil {
		return nil, &Error{Kind: ErrDecode, EventID: s.ID, Subject: c.subject, Version: w.num, Err: err}
	}
	return c.UpcastValue(ctx, w.num, s.ID, v)
}

func failureOf(s *Sample, err error) SampleFailure {
	f := SampleFailure{ID: s.ID, Line: s.Line, Version: s.Version, Kind: "error", Message: err.Error()}
	var ue *Error
	if errors.As(err, &ue) {
		f.Kind = ue.Kind.Error()
		if ue.Version > 0 {
			f.Version = ue.Version
		}
		if ue.Step != nil {
			f.Step = ue.Step.String()
		}
		if ue.Err != nil {
			f.Message = ue.Err.Error()
		}
	}
	return f
}
