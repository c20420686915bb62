package clienttest

import (
	"errors"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
)

// franzOrder is orderV1 as a Go value for hamba/avro.
type franzOrder struct {
	ID     int64   `avro:"id"`
	Amount float64 `avro:"amount"`
}

// TestFranzGoClient drives charter serve with franz-go's pkg/sr,
// unmodified, without authentication and with its BasicAuth and
// BearerToken options: create and look up a schema, fetch it by ID,
// check compatibility, set the subject's level, and round-trip a record
// through sr.Serde in the Confluent wire format; wrong credentials get
// 40101.
func TestFranzGoClient(t *testing.T) {
	plain := startServer(t)
	secured := startAuthServer(t)
	cases := []struct {
		name string
		url  string
		opts []sr.ClientOpt
	}{
		{"no auth", plain.URL, nil},
		{"basic", secured.URL, []sr.ClientOpt{sr.BasicAuth(secured.basic.user, secured.basic.password)}},
		{"bearer", secured.URL, []sr.ClientOpt{sr.BearerToken(secured.bearer.token)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			cl, err := sr.NewClient(append([]sr.ClientOpt{sr.URLs(tc.url)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			subject := "franz-orders-value"
			created, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: orderV1})
			if err != nil || created.ID <= 0 || created.Version != 1 {
				t.Fatalf("CreateSchema: %+v %v", created, err)
			}
			found, err := cl.LookupSchema(ctx, subject, sr.Schema{Schema: orderV1})
			if err != nil || found.ID != created.ID || found.Version != 1 {
				t.Errorf("LookupSchema: %+v %v; want ID %d version 1", found, err, created.ID)
			}
			byID, err := cl.SchemaByID(ctx, created.ID)
			if err != nil {
				t.Fatalf("SchemaByID: %v", err)
			}
			wantSameSchema(t, "SchemaByID", byID.Schema, orderV1)
			if res, err := cl.CheckCompatibility(ctx, subject, -1, sr.Schema{Schema: orderV2}); err != nil || !res.Is {
				t.Errorf("CheckCompatibility v2: %+v %v; want compatible", res, err)
			}
			if res, err := cl.CheckCompatibility(ctx, subject, -1, sr.Schema{Schema: orderBad}); err != nil || res.Is {
				t.Errorf("CheckCompatibility of a field without default: %+v %v; want incompatible", res, err)
			}
			for _, r := range cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatFull}, subject) {
				if r.Err != nil || r.Level != sr.CompatFull {
					t.Errorf("SetCompatibility FULL: %+v", r)
				}
			}

			schema := avro.MustParse(orderV1)
			var serde sr.Serde
			serde.Register(created.ID, franzOrder{},
				sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(schema, v) }),
				sr.DecodeFn(func(b []byte, v any) error { return avro.Unmarshal(schema, b, v) }))
			in := franzOrder{ID: 7, Amount: 12.5}
			msg, err := serde.Encode(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := wireID(t, msg); got != created.ID {
				t.Errorf("wire ID %d, want %d", got, created.ID)
			}
			var out franzOrder
			if err := serde.Decode(msg, &out); err != nil || out != in {
				t.Errorf("Decode: %+v %v; want %+v", out, err, in)
			}
		})
	}
	for name, opt := range map[string]sr.ClientOpt{
		"wrong password": sr.BasicAuth(secured.basic.user, "nope"),
		"wrong token":    sr.BearerToken("charter_nope"),
	} {
		cl, err := sr.NewClient(sr.URLs(secured.URL), opt)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.Subjects(t.Context())
		var re *sr.ResponseError
		if !errors.As(err, &re) || re.StatusCode != 401 || re.ErrorCode != 40101 {
			t.Errorf("%s: %v; want a 401 with error_code 40101", name, err)
		}
	}
}
