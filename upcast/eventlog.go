package upcast

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
)

// LogEvent is one line of an event log file: JSON Lines, one event per
// line (blank lines and lines starting with "#" skipped), the form
// `charter upcast replay` reads and writes:
//
//	{"id": "o-1", "key": "c-7", "payload": "AAAAAAE…"}
//	{"id": "o-2", "subject": "OrderPlaced", "version": 1, "payload": "…"}
//
// payload is the stored bytes, base64: with version or schemaId they are
// the bare encoding, without them they carry the Confluent wire-format
// header (see Event). id names the event in reports and dead letters
// (default "line N"); key orders events in Replay. from (the writer
// version of an upcast event) and error (why a dead letter failed) are
// written by EventLogWriter and ignored when read, so that a dead-letter
// file can be replayed as it is once the step is fixed.
type LogEvent struct {
	ID       string            `json:"id,omitempty"`
	Key      string            `json:"key,omitempty"`
	Subject  string            `json:"subject,omitempty"`
	Version  int               `json:"version,omitempty"`
	SchemaID int64             `json:"schemaId,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Payload  []byte            `json:"payload"`
	From     int               `json:"from,omitempty"`
	Error    *LogError         `json:"error,omitempty"`
}

// LogError is why a dead-lettered event failed: the *Error's kind, the
// failing step ("v1→v2 go(splitCustomer)") and the cause.
type LogError struct {
	Kind    string `json:"kind"`
	Step    string `json:"step,omitempty"`
	Message string `json:"message"`
}

// ReadEvents reads an event log (see LogEvent) as a Replay source, one
// line at a time. A line that is not a LogEvent, or has no payload, ends
// the sequence with an error naming the line: `line 3: no payload`.
func ReadEvents(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		err := eachLine(r, func(n int, line []byte) error {
			var le LogEvent
			d := json.NewDecoder(bytes.NewReader(line))
			d.DisallowUnknownFields()
			if err := d.Decode(&le); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			switch {
			case le.Payload == nil:
				return fmt.Errorf("line %d: no payload", n)
			case le.Version < 0 || le.SchemaID < 0:
				return fmt.Errorf("line %d: version and schemaId must be positive", n)
			}
			if le.ID == "" {
				le.ID = fmt.Sprintf("line %d", n)
			}
			ev := Event{ID: le.ID, Key: le.Key, Subject: le.Subject, Version: le.Version, SchemaID: le.SchemaID, Headers: le.Headers, Payload: le.Payload}
			if !yield(ev, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			yield(Event{}, err)
		}
	}
}

// errStop ends eachLine when the consumer of ReadEvents stops.
var errStop = errors.New("stop")

// CountEvents counts the events of an event log (its lines that are not
// blank or comments) without parsing them, for a progress total.
func CountEvents(r io.Reader) (int64, error) {
	var n int64
	err := eachLine(r, func(int, []byte) error {
		n++
		return nil
	})
	return n, err
}

// EventLogWriter writes upcast events and dead letters as event log
// lines (see LogEvent). Its Sink and DeadLetter may be called from
// several goroutines; lines are written whole, in call order. Call Flush
// at the end.
type EventLogWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	n   int64
	err error
}

// NewEventLogWriter returns a writer of event log lines to w.
func NewEventLogWriter(w io.Writer) *EventLogWriter {
	return &EventLogWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Sink writes r as an event of its target version: id, key, subject,
// from (the writer version) and the payload in the wire format of the
// target schema (Result.Framed). Headers are not copied: they may
// describe the old version. An encoding or write error stops a replay.
func (lw *EventLogWriter) Sink(_ context.Context, r *Result) error {
	b, err := r.Framed()
	if err != nil {
		return err
	}
	return lw.write(LogEvent{ID: r.EventID, Key: r.Key, Subject: r.Subject, From: r.From, Payload: b})
}

// DeadLetter writes the failed event as it was read (its stored bytes,
// version or schema ID, headers) with the error, so the line can be
// replayed after a fix.
func (lw *EventLogWriter) DeadLetter(_ context.Context, ev Event, e *Error) error {
	le := LogEvent{ID: ev.ID, Key: ev.Key, Subject: ev.Subject, Version: ev.Version, SchemaID: ev.SchemaID, Headers: ev.Headers, Payload: ev.Payload,
		Error: &LogError{Kind: e.Kind.Error(), Message: e.Error()}}
	if e.Err != nil {
		le.Error.Message = e.Err.Error()
	}
	if e.Step != nil {
		le.Error.Step = e.Step.String()
	}
	return lw.write(le)
}

func (lw *EventLogWriter) write(le LogEvent) error {
	line, err := json.Marshal(le)
	if err != nil {
		return fmt.Errorf("write event %q: %w", le.ID, err)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(append(line, '\n')); err != nil {
		lw.err = fmt.Errorf("write event %q: %w", le.ID, err)
		return lw.err
	}
	lw.n++
	return nil
}

// Count returns how many lines were written.
func (lw *EventLogWriter) Count() int64 {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.n
}

// Flush writes what is buffered; it returns the first write error.
func (lw *EventLogWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if err := lw.w.Flush(); err != nil {
		lw.err = fmt.Errorf("flush event log: %w", err)
	}
	return lw.err
}
