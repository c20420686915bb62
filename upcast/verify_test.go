package upcast_test

import (
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/upcast"
)

func readVerifyFiles(t *testing.T) ([]upcast.Sample, map[string]json.RawMessage) {
	t.Helper()
	f, err := os.Open("testdata/verify/samples.jsonl")
	must(t, err)
	defer f.Close()
	samples, err := upcast.ReadSamples(f)
	must(t, err)
	e, err := os.Open("testdata/verify/expected.jsonl")
	must(t, err)
	defer e.Close()
	exp, err := upcast.ReadExpected(e)
	must(t, err)
	return samples, exp
}

func TestVerify(t *testing.T) {
	t.Parallel()
	samples, expected := readVerifyFiles(t)
	u := orderUpcaster(t, upcast.WithValidation(upcast.ValidateSteps))
	rep, err := upcast.Verify(t.Context(), u, "orders", samples, expected)
	must(t, err)
	if rep.Failed() || rep.OK != 5 || rep.Samples != 5 || rep.Target != 3 {
		t.Fatalf("report = %+v", rep)
	}
	if got := rep.Versions[0]; got.Version != 1 || got.Samples != 2 || got.OK != 2 || strings.Join(got.Path, ", ") != "v1→v2 go(splitCustomer), v2→v3 go(centsToAmount)" {
		t.Errorf("v1 report = %+v", got)
	}

	// A deliberately broken step: cents are divided by 10, not 100.
	broken := upcast.NewSteps()
	broken.MustRegister("orders", 1, 2, "splitCustomer", func(v map[string]any) (map[string]any, error) {
		v["orderId"] = v["id"]
		delete(v, "id")
		v["customer"] = map[string]any{"name": v["customer"], "email": nil}
		return v, nil
	})
	broken.MustRegister("orders", 2, 3, "centsToAmount", func(v map[string]any) (map[string]any, error) {
		cents, _ := v["totalCents"].(int64)
		delete(v, "totalCents")
		if cents >= 100000 {
			return nil, errAmountTooLarge
		}
		v["amount"] = new(big.Rat).SetFrac64(cents, 10)
		return v, nil
	})
	ub, _ := upcast.New(upcast.WithSource(staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)), upcast.WithSteps(broken), upcast.WithValidation(upcast.ValidateSteps))
	expected["o-missing"] = []byte(`{}`)
	rep, err = upcast.Verify(t.Context(), ub, "orders", samples, expected)
	must(t, err)
	if !rep.Failed() || rep.OK != 1 || len(rep.Failures) != 4 || strings.Join(rep.Unmatched, ",") != "o-missing" {
		t.Fatalf("report = %+v", rep)
	}
	f := rep.Failures[0]
	if f.ID != "o-1" || f.Version != 1 || f.Kind != "differs from expected" || f.Step != "v2→v3 go(centsToAmount)" ||
		strings.Join(f.Diff, "; ") != ".amount: got 123.4, want 12.34" {
		t.Errorf("failure 0 = %+v", f)
	}
	f = rep.Failures[3]
	if f.ID != "o-4" || f.Kind != "upcast step failed" || f.Step != "v2→v3 go(centsToAmount)" || f.Message != "amount too large" {
		t.Errorf("failure 3 = %+v", f)
	}
}

var errAmountTooLarge = errorString("amount too large")

type errorString string

func (e errorString) Error() string { return string(e) }

func TestReadSamplesErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"id":"a","version":1}`, "line 1: neither value nor payload is set"},
		{`{"id":"a","version":1,"value":{},"payload":"AA=="}`, "line 1: value and payload are both set"},
		{`{"id":"a","value":{}}`, "line 1: a value needs its version or schemaId"},
		{"\n{\"id\":\"a\",\"version\":1,\"value\":{}}\n{\"id\":\"a\",\"version\":1,\"value\":{}}", `line 3: id "a" is already used on line 2`},
		{`{"id":"a","version":1,"value":{},"extra":1}`, `line 1: json: unknown field "extra"`},
		{`{"id":"a",`, "line 1: unexpected EOF"},
		{`{"id":"a","payload":"!!"}`, "line 1: illegal base64"},
	} {
		_, err := upcast.ReadSamples(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadSamples(%q): err = %v, want %q", tc.in, err, tc.want)
		}
	}
}
