package upcast_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/upcast"
)

func TestParseWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      []byte
		id      int64
		rest    string
		wantErr string
	}{
		{in: []byte{0, 0, 0, 0, 7, 'x'}, id: 7, rest: "x"},
		{in: []byte{0, 0x7f, 0xff, 0xff, 0xff}, id: 1<<31 - 1, rest: ""},
		{in: []byte{0, 1, 2}, wantErr: "payload of 3 bytes is too short"},
		{in: []byte{1, 0, 0, 0, 7}, wantErr: "starts with byte 0x01"},
		{in: nil, wantErr: "payload of 0 bytes"},
	} {
		id, rest, err := upcast.ParseWire(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseWire(%x): err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || id != tc.id || string(rest) != tc.rest {
			t.Errorf("ParseWire(%x) = %d, %q, %v", tc.in, id, rest, err)
		}
		if got := append(upcast.AppendWire(nil, id), rest...); string(got) != string(tc.in) {
			t.Errorf("AppendWire round trip = %x, want %x", got, tc.in)
		}
	}
}

func TestMessageIndexes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      []byte
		want    []int
		rest    string
		wantErr string
	}{
		{in: []byte{0, 'm'}, want: []int{0}, rest: "m"},                  // the [0] shortcut
		{in: []byte{2, 2, 'm'}, want: []int{1}, rest: "m"},               // count 1 (zig-zag 2), index 1 (2)
		{in: []byte{4, 2, 0, 'm'}, want: []int{1, 0}, rest: "m"},         // [1, 0]
		{in: []byte{2, 0x80, 0x01}, want: []int{64}, rest: ""},           // index 64 = zig-zag 128, two bytes
		{in: []byte{}, wantErr: "truncated or overlong count"},           // nothing
		{in: []byte{4, 2}, wantErr: "index 2 of 2 is truncated"},         // count 2, one index
		{in: []byte{1}, wantErr: "count -1 is out of range"},             // zig-zag 1 = -1
		{in: []byte{2, 1}, wantErr: "index -1 is out of range"},          // negative index
		{in: []byte{0xc8, 0x01}, wantErr: "index 1 of 100 is truncated"}, // count 100 is fine but truncated
		{in: []byte{0xca, 0x01}, wantErr: "count 101 is out of range"},
	} {
		got, rest, err := upcast.ParseMessageIndexes(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseMessageIndexes(%x): err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) || string(rest) != tc.rest {
			t.Errorf("ParseMessageIndexes(%x) = %v, %q, %v; want %v", tc.in, got, rest, err, tc.want)
			continue
		}
		if enc := upcast.AppendMessageIndexes(nil, got); string(append(enc, rest...)) != string(tc.in) {
			t.Errorf("AppendMessageIndexes(%v) = %x", got, enc)
		}
	}
}

func TestProtobufWireFormat(t *testing.T) {
	t.Parallel()
	const (
		v1 = "syntax = \"proto3\";\npackage p;\nmessage Other { int32 x = 1; }\nmessage Order { string id = 1; }"
		v2 = "syntax = \"proto3\";\npackage p;\nmessage Other { int32 x = 1; }\nmessage Order { string id = 1; string note = 2; }"
	)
	src := staticSource(t, "orders", compat.Protobuf, v1, v2)
	u, _ := upcast.New(upcast.WithSource(src), upcast.WithSubject("orders"), upcast.WithProtoMessage("orders", "p.Order"))
	// message indexes [1]: the second message, Order.
	payload := append(upcast.AppendMessageIndexes(upcast.AppendWire(nil, 1), []int{1}), 0x0a, 0x01, 'a')
	r, err := u.Upcast(t.Context(), upcast.Event{Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := r.Value()
	if !reflect.DeepEqual(v, map[string]any{"id": "a", "note": ""}) {
		t.Errorf("value = %v", v)
	}
	framed, err := r.Framed()
	if err != nil || string(framed[:7]) != string([]byte{0, 0, 0, 0, 2, 2, 2}) {
		t.Errorf("Framed = %x, %v; want schema 2, indexes [1]", framed, err)
	}
	// Indexes naming another message are refused.
	other := append(upcast.AppendMessageIndexes(upcast.AppendWire(nil, 1), []int{0}), 0x08, 0x01)
	if _, err := u.Upcast(t.Context(), upcast.Event{ID: "o", Payload: other}); !errors.Is(err, upcast.ErrDecode) ||
		!strings.Contains(err.Error(), "the payload is a p.Other, not the subject's message p.Order") {
		t.Errorf("other message: err = %v", err)
	}
}

func TestEnvelopes(t *testing.T) {
	t.Parallel()
	const js1 = `{"type":"object","properties":{"a":{"type":"integer"}}}`
	src := staticSource(t, "OrderPlaced", compat.JSON, js1)
	data := `{"a":1}`
	b64 := base64.StdEncoding.EncodeToString([]byte(data))
	type want struct {
		subject string
		version int
		id      int64
		payload string
	}
	for _, tc := range []struct {
		name    string
		env     upcast.Envelope
		ev      upcast.Event
		want    want
		wantErr string
	}{
		{"headers", upcast.HeaderEnvelope{TypeHeader: "event-type", VersionHeader: "event-version"},
			upcast.Event{Headers: map[string]string{"event-type": "OrderPlaced", "event-version": "v1"}, Payload: []byte(data)},
			want{"OrderPlaced", 1, 0, data}, ""},
		{"headers: missing version", upcast.HeaderEnvelope{TypeHeader: "event-type", VersionHeader: "event-version"},
			upcast.Event{Headers: map[string]string{"event-type": "OrderPlaced"}}, want{}, `header "event-version" is missing`},
		{"fields", upcast.FieldEnvelope{TypeField: "type", VersionField: "version", DataField: "data"},
			upcast.Event{Payload: []byte(`{"type":"OrderPlaced","version":1,"data":` + data + `}`)}, want{"OrderPlaced", 1, 0, data}, ""},
		{"fields: mapped type, string version", upcast.FieldEnvelope{TypeField: "t", VersionField: "v", DataField: "d", Subject: func(t string) string { return "Order" + t }},
			upcast.Event{Payload: []byte(`{"t":"Placed","v":"1","d":` + data + `}`)}, want{"OrderPlaced", 1, 0, data}, ""},
		{"fields: bad version", upcast.FieldEnvelope{TypeField: "type", VersionField: "version", DataField: "data"},
			upcast.Event{Payload: []byte(`{"type":"x","version":"two","data":{}}`)}, want{}, `member "version": version "two" is not a positive number`},
		{"cloudevents structured, subject URL", upcast.CloudEvents{},
			upcast.Event{Payload: []byte(`{"specversion":"1.0","type":"com.acme.order.placed","source":"/s","id":"1","dataschema":"http://sr:8081/subjects/OrderPlaced/versions/1","data":` + data + `}`)},
			want{"OrderPlaced", 1, 0, data}, ""},
		{"cloudevents structured, ID URL, base64", upcast.CloudEvents{Subject: func(string) string { return "OrderPlaced" }},
			upcast.Event{Payload: []byte(`{"specversion":"1.0","type":"com.acme.order.placed","dataschema":"https://sr/schemas/ids/1","data_base64":"` + b64 + `"}`)},
			want{"OrderPlaced", 0, 1, data}, ""},
		{"cloudevents binary", upcast.CloudEvents{Subject: func(string) string { return "OrderPlaced" }},
			upcast.Event{Headers: map[string]string{"ce_type": "com.acme.order.placed", "ce_dataschema": "/subjects/OrderPlaced/versions/1"}, Payload: []byte(data)},
			want{"OrderPlaced", 1, 0, data}, ""},
		{"cloudevents binary, hyphen headers, no dataschema", upcast.CloudEvents{},
			upcast.Event{Headers: map[string]string{"ce-type": "OrderPlaced"}, Payload: append(upcast.AppendWire(nil, 1), data...)},
			want{"OrderPlaced", 0, 0, string(append(upcast.AppendWire(nil, 1), data...))}, ""},
		{"cloudevents: not a registry URL", upcast.CloudEvents{},
			upcast.Event{Headers: map[string]string{"ce_type": "x", "ce_dataschema": "https://example.com/schema.json"}}, want{}, "is not a registry URL"},
		{"cloudevents: no type", upcast.CloudEvents{}, upcast.Event{Payload: []byte(`{"data":{}}`)}, want{}, `without "specversion" or "type"`},
		{"cloudevents: not JSON", upcast.CloudEvents{}, upcast.Event{Payload: []byte{0, 1}}, want{}, "not a structured-mode JSON event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.ev
			err := tc.env.Open(&ev)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Open: err = %v, want %q", err, tc.wantErr)
				}
				// Through an Upcaster the same failure is ErrDecode.
				u, _ := upcast.New(upcast.WithSource(src), upcast.WithEnvelope(tc.env))
				if _, err := u.Upcast(t.Context(), tc.ev); !errors.Is(err, upcast.ErrDecode) {
					t.Errorf("Upcast: err = %v, want ErrDecode", err)
				}
				return
			}
			got := want{ev.Subject, ev.Version, ev.SchemaID, string(ev.Payload)}
			if err != nil || got != tc.want {
				t.Fatalf("Open = %+v, %v; want %+v", got, err, tc.want)
			}
			u, _ := upcast.New(upcast.WithSource(src), upcast.WithEnvelope(tc.env))
			r, err := u.Upcast(t.Context(), tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := r.Value(); !reflect.DeepEqual(v, map[string]any{"a": 1.0}) {
				t.Errorf("value = %v", v)
			}
		})
	}
}

// TestIDCacheOneFetchPerID sends events that name only a schema ID from
// 8 goroutines at once: each ID is looked up in the registry once.
func TestIDCacheOneFetchPerID(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t)
	ids := map[string]int64{}
	for _, subject := range []string{"a", "b", "c"} {
		ids[subject] = reg.register(t, subject, client.NewSchema{Type: compat.JSON, Text: fmt.Sprintf(`{"type":"object","title":%q}`, subject)})
	}
	u, _ := upcast.New(upcast.WithRegistry(reg.client))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				subject := []string{"a", "b", "c"}[(g+i)%3]
				r, err := u.Upcast(t.Context(), upcast.Event{Payload: append(upcast.AppendWire(nil, ids[subject]), `{"n":1}`...)})
				if err != nil {
					errs <- err
					return
				}
				if r.Subject != subject {
					errs <- fmt.Errorf("subject %s, want %s", r.Subject, subject)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for subject, id := range ids {
		if n := reg.count(fmt.Sprintf("GET /schemas/ids/%d/versions", id)); n != 1 {
			t.Errorf("schema %d looked up %d times, want 1", id, n)
		}
		if n := reg.count("GET /subjects/" + subject + "/versions"); n != 1 {
			t.Errorf("subject %s listed %d times, want 1 (one chain build)", subject, n)
		}
	}
	// An ID no subject uses is an ErrUnknownVersion naming it.
	if _, err := u.Upcast(t.Context(), upcast.Event{ID: "x", Payload: upcast.AppendWire(nil, 999)}); !errors.Is(err, upcast.ErrUnknownVersion) ||
		!strings.Contains(err.Error(), "schema ID 999") {
		t.Errorf("unknown ID: err = %v", err)
	}
}
