package upcast_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/upcast"
)

// TestEventLogRoundTrip replays a mixed log read from JSON Lines into an
// event log and a dead-letter log, then reads both back: upcast events
// are v3 in the wire format with their id, key and writer version; the
// dead letter keeps the stored bytes and says why it failed.
func TestEventLogRoundTrip(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	var in bytes.Buffer
	in.WriteString("# a mixed log\n\n")
	for _, ev := range orderLog(t, 9, 3) {
		must(t, json.NewEncoder(&in).Encode(upcast.LogEvent{ID: ev.ID, Key: ev.Key, Payload: ev.Payload}))
	}
	bad := upcast.LogEvent{ID: "bad", Key: "k0", Version: 1, Payload: []byte{0x02}}
	must(t, json.NewEncoder(&in).Encode(bad))
	n, err := upcast.CountEvents(bytes.NewReader(in.Bytes()))
	if err != nil || n != 10 {
		t.Fatalf("CountEvents = %d, %v; want 10", n, err)
	}

	var out, dead bytes.Buffer
	ow, dw := upcast.NewEventLogWriter(&out), upcast.NewEventLogWriter(&dead)
	st, err := upcast.Replay(t.Context(), u, upcast.ReadEvents(&in), ow.Sink, upcast.WithDeadLetter(dw.DeadLetter), upcast.WithConcurrency(1))
	must(t, err)
	must(t, ow.Flush())
	must(t, dw.Flush())
	if st.Events != 10 || st.Upcast != 6 || st.FastPath != 3 || st.Failed != 1 || ow.Count() != 9 || dw.Count() != 1 {
		t.Fatalf("stats %+v, wrote %d and %d dead; want 10 events, 6 upcast, 3 fast, 1 failed", st, ow.Count(), dw.Count())
	}

	var lines []upcast.LogEvent
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var le upcast.LogEvent
		must(t, json.Unmarshal([]byte(l), &le))
		lines = append(lines, le)
	}
	var ids, froms []string
	for _, le := range lines {
		ids = append(ids, le.ID+"/"+le.Key)
		froms = append(froms, string(rune('0'+le.From)))
		if id, _, err := upcast.ParseWire(le.Payload); err != nil || id != 3 || le.Subject != "orders" {
			t.Errorf("%s: schema ID %d (%v), subject %q; want v3's ID 3 in the wire format, subject orders", le.ID, id, err, le.Subject)
		}
	}
	if want := []string{"e0/k0", "e1/k1", "e2/k2", "e3/k0", "e4/k1", "e5/k2", "e6/k0", "e7/k1", "e8/k2"}; !slices.Equal(ids, want) {
		t.Errorf("ids = %v, want %v (source order with one worker)", ids, want)
	}
	if want := []string{"1", "2", "3", "1", "2", "3", "1", "2", "3"}; !slices.Equal(froms, want) {
		t.Errorf("from = %v, want %v", froms, want)
	}

	// The upcast log replays again, all on the fast path, to the same
	// values.
	again, err := upcast.Replay(t.Context(), u, upcast.ReadEvents(bytes.NewReader(out.Bytes())), func(_ context.Context, r *upcast.Result) error {
		v, err := r.Value()
		if err == nil && !upcast.Equal(v["amount"], rat(strings.TrimPrefix(r.EventID, "e")+"/100")) {
			t.Errorf("%s: amount %v", r.EventID, v["amount"])
		}
		return err
	})
	if err != nil || again.FastPath != 9 || again.Upcast != 0 {
		t.Errorf("replay of the output: %+v, %v; want 9 on the fast path", again, err)
	}

	var dl upcast.LogEvent
	must(t, json.Unmarshal(bytes.TrimSpace(dead.Bytes()), &dl))
	if dl.ID != "bad" || dl.Key != "k0" || dl.Version != 1 || !bytes.Equal(dl.Payload, []byte{0x02}) || dl.Error == nil ||
		dl.Error.Kind != upcast.ErrDecode.Error() || !strings.Contains(dl.Error.Message, "truncated") {
		t.Errorf("dead letter = %+v (error %+v)", dl, dl.Error)
	}
	// A dead-letter line reads back as the event it was.
	for ev, err := range upcast.ReadEvents(bytes.NewReader(dead.Bytes())) {
		if err != nil || ev.ID != "bad" || ev.Version != 1 || !bytes.Equal(ev.Payload, []byte{0x02}) {
			t.Errorf("dead letter read back: %+v, %v", ev, err)
		}
	}
}

func TestReadEventsErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
		good           int
	}{
		{"not JSON", `{"payload":"AA=="}` + "\nnope\n", "line 2: invalid character", 1},
		{"no payload", `{"id":"a","version":1}`, "line 1: no payload", 0},
		{"unknown field", `{"payload":"AA==","value":{}}`, `line 1: json: unknown field "value"`, 0},
		{"negative version", `{"payload":"AA==","version":-1}`, "line 1: version and schemaId must be positive", 0},
		{"bad base64", `{"payload":"!!"}`, "line 1: illegal base64", 0},
	} {
		good := 0
		var got error
		for ev, err := range upcast.ReadEvents(strings.NewReader(tc.in)) {
			if err != nil {
				got = err
				break
			}
			if ev.ID != "line 1" {
				t.Errorf("%s: default id %q, want line 1", tc.name, ev.ID)
			}
			good++
		}
		if got == nil || !strings.Contains(got.Error(), tc.want) || good != tc.good {
			t.Errorf("%s: %d events then %v; want %d then an error containing %q", tc.name, good, got, tc.good, tc.want)
		}
	}
	// A source error stops Replay and is returned.
	u := orderUpcaster(t)
	_, err := upcast.Replay(t.Context(), u, upcast.ReadEvents(strings.NewReader("{}")), func(context.Context, *upcast.Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "read source: line 1: no payload") || errors.Is(err, upcast.ErrDecode) {
		t.Errorf("Replay of a bad log: %v", err)
	}
}
