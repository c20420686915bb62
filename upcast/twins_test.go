package upcast_test

import (
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/upcast"
)

// TestUpcastFingerprintTwins upcasts one v1 event with two upcasters in
// one process whose v2 schemas differ only in a nested default: one Avro
// fingerprint, and one key in hamba's cache of resolved decoders too (it
// adds the writer's fingerprint and the top-level defaults only). The
// fixed field leaves decoding to hamba, whose codec cache, shared, gave
// the second upcaster the first one's default. Each must give what a
// fresh process gives: its own v2's defaults, encoded with its own v2.
func TestUpcastFingerprintTwins(t *testing.T) {
	const v1 = `{"type":"record","name":"U","fields":[
		{"name":"a","type":"string"},
		{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}},
		{"name":"fx","type":{"type":"fixed","name":"FX","size":1}}]}`
	v2 := func(nested, top string) string {
		return `{"type":"record","name":"U","fields":[
			{"name":"a","type":"string"},
			{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string","default":"` + nested + `"}]}},
			{"name":"fx","type":{"type":"fixed","name":"FX","size":1}},
			{"name":"b","type":"string","default":"` + top + `"}]}`
	}
	payload := encodeAvro(t, v1, map[string]any{"a": "s", "r": map[string]any{"x": 1}, "fx": [1]byte{7}})
	for _, order := range [][2][2]string{{{"p", "b"}, {"q", "b"}}, {{"q", "b"}, {"p", "b"}}} {
		for _, d := range order {
			text := v2(d[0], d[1])
			u, err := upcast.New(upcast.WithSource(staticSource(t, "u", compat.Avro, v1, text)), upcast.WithSubject("u"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := u.Upcast(t.Context(), upcast.Event{Version: 1, Payload: payload})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Value()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"a": "s", "r": map[string]any{"x": 1, "y": d[0]}, "fx": [1]byte{7}, "b": d[1]}
			if !upcast.Equal(got, want) {
				t.Errorf("v2 with defaults %v: upcast to %v, want %v (a fresh process)", d, got, want)
			}
			out, err := r.Payload()
			if err != nil {
				t.Fatal(err)
			}
			s, err := avro.Parse(text, nil)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := avro.UncachedAPI.Marshal(s.Hamba(), want)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(fresh) {
				t.Errorf("v2 with defaults %v: payload %v, want %v (a fresh config)", d, out, fresh)
			}
		}
	}
}
