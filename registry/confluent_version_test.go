package registry

import (
	"encoding/json"
	"testing"
)

// TestConfluentVersionMetadata: the confluent:version helpers set,
// read and set aside the property; what is left keeps one spelling
// (empty members dropped, nothing left is no metadata).
func TestConfluentVersionMetadata(t *testing.T) {
	for _, c := range []struct {
		name, meta  string
		sans        string
		version     int
		numeric, in bool
		with3       string
	}{
		{name: "none", meta: ``, sans: ``, with3: `{"properties":{"confluent:version":"3"}}`},
		{name: "only the property", meta: `{"properties":{"confluent:version":"2"}}`, sans: ``, version: 2, numeric: true, in: true,
			with3: `{"properties":{"confluent:version":"3"}}`},
		{name: "with others", meta: `{"tags":{},"properties":{"owner":"shipping","confluent:version":"7"},"sensitive":["ssn"]}`,
			sans: `{"properties":{"owner":"shipping"},"sensitive":["ssn"]}`, version: 7, numeric: true, in: true,
			with3: `{"properties":{"confluent:version":"3","owner":"shipping"},"sensitive":["ssn"]}`},
		{name: "not a number", meta: `{"properties":{"confluent:version":"two"}}`, sans: ``, in: true,
			with3: `{"properties":{"confluent:version":"3"}}`},
		{name: "empty", meta: `{"properties":{}}`, sans: ``, with3: `{"properties":{"confluent:version":"3"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			meta := json.RawMessage(c.meta)
			if got := string(sansConfluentVersion(meta)); got != c.sans {
				t.Errorf("sansConfluentVersion = %s, want %s", got, c.sans)
			}
			if v, ok := confluentVersion(meta); v != c.version || ok != c.numeric {
				t.Errorf("confluentVersion = %d, %v; want %d, %v", v, ok, c.version, c.numeric)
			}
			if got := hasConfluentVersion(meta); got != c.in {
				t.Errorf("hasConfluentVersion = %v, want %v", got, c.in)
			}
			if got := string(withConfluentVersion(meta, 3)); got != c.with3 {
				t.Errorf("withConfluentVersion(3) = %s, want %s", got, c.with3)
			}
		})
	}
}
