package contracts_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/contracts"
)

// FuzzParseAndVerify: no pact text makes ParsePact or Verify panic or
// take more CPU than fuzztest.Bound allows.
func FuzzParseAndVerify(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pacts", "*.json"))
	for _, p := range files {
		if strings.HasSuffix(p, ".want.json") || strings.Contains(p, ".schema.") || strings.HasSuffix(p, ".deprecations.json") {
			continue
		}
		f.Add(mustRead(f, p))
	}
	schemas := map[string]string{}
	for _, p := range []string{"compatible_avro.avsc", "compatible_protobuf.proto", "compatible_jsonschema.schema.json"} {
		schemas[p] = string(mustRead(f, filepath.Join("testdata", "pacts", p)))
	}
	var vs []*contracts.Verifier
	for p, text := range schemas {
		typ := formats.OfFile(p)
		s, err := contracts.ParseSchema(text, typ)
		if err != nil {
			f.Fatal(err)
		}
		v, err := contracts.NewVerifier(s, contracts.Options{Now: testNow})
		if err != nil {
			f.Fatal(err)
		}
		vs = append(vs, v)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzztest.Bound(t, len(data), func() {
			p, err := contracts.ParsePact(data)
			if err != nil {
				return
			}
			for _, v := range vs {
				v.Verify(&contracts.Contract{Pact: p})
			}
		})
	})
}
