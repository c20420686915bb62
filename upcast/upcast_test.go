package upcast_test

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/upcast"
)

func orderUpcaster(t testing.TB, opts ...upcast.Option) *upcast.Upcaster {
	t.Helper()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)
	u, err := upcast.New(append([]upcast.Option{upcast.WithSource(src), upcast.WithSteps(orderSteps(t)), upcast.WithSubject("orders")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	must(t, u.Build(t.Context(), "orders"))
	return u
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func TestAvroChainThreeGenerations(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	ada := map[string]any{"name": "Ada", "email": nil}
	want := map[string]any{"orderId": "o-1", "customer": ada, "amount": rat("12.34"), "currency": "EUR"}
	for _, tc := range []struct {
		name      string
		id        int64
		text      string
		value     map[string]any
		wantSteps []string
	}{
		{"v1", 1, orderV1, map[string]any{"id": "o-1", "customer": "Ada", "totalCents": int64(1234)},
			[]string{"v1→v2 go(splitCustomer)", "v2→v3 go(centsToAmount)"}},
		{"v2", 2, orderV2, map[string]any{"orderId": "o-1", "customer": map[string]any{"name": "Ada", "email": nil}, "totalCents": int64(1234)},
			[]string{"v2→v3 go(centsToAmount)"}},
		{"v3", 3, orderV3, want, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := upcast.Event{ID: "e-" + tc.name, Payload: wire(tc.id, encodeAvro(t, tc.text, tc.value))}
			r, err := u.Upcast(t.Context(), ev)
			if err != nil {
				t.Fatal(err)
			}
			var steps []string
			for _, s := range r.Steps {
				steps = append(steps, s.String())
			}
			if !reflect.DeepEqual(steps, tc.wantSteps) {
				t.Errorf("steps = %q, want %q", steps, tc.wantSteps)
			}
			if r.FastPath() != (tc.id == 3) || r.From != int(tc.id) || r.To != 3 {
				t.Errorf("FastPath=%v From=%d To=%d", r.FastPath(), r.From, r.To)
			}
			got, err := r.Value()
			if err != nil {
				t.Fatal(err)
			}
			if !upcast.Equal(got, want) {
				t.Errorf("value = %v, want %v; diff %v", got, want, upcast.Diff(got, want, 5))
			}
			framed, err := r.Framed()
			if err != nil {
				t.Fatal(err)
			}
			// The framed output is a v3 event: upcasting it is the fast path.
			again, err := u.Upcast(t.Context(), upcast.Event{Payload: framed})
			if err != nil || !again.FastPath() || again.SchemaID() != 3 {
				t.Fatalf("re-read framed output: %v, %v", again, err)
			}
			back, err := again.Value()
			if err != nil || !upcast.Equal(back, want) {
				t.Errorf("framed output reads back as %v, %v", back, err)
			}
		})
	}
}

func TestFastPathDoesNotDecode(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	garbage := wire(3, []byte{0xff, 0xff, 0xff})
	r, err := u.Upcast(t.Context(), upcast.Event{ID: "x", Payload: garbage})
	if err != nil {
		t.Fatalf("fast path decoded the payload: %v", err)
	}
	p, err := r.Payload()
	if err != nil || string(p) != string(garbage[5:]) {
		t.Errorf("Payload = %x, %v; want the stored bytes", p, err)
	}
	_, err = r.Value()
	if !errors.Is(err, upcast.ErrDecode) {
		t.Errorf("Value of garbage: err = %v, want ErrDecode", err)
	}
}

func TestPath(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	c, err := u.Chain(t.Context(), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if c.Target() != 3 || !reflect.DeepEqual(c.Versions(), []int{1, 2, 3}) {
		t.Errorf("target %d versions %v", c.Target(), c.Versions())
	}
	p, err := c.Path(1)
	if err != nil || fmt.Sprint(p) != "[v1→v2 go(splitCustomer) v2→v3 go(centsToAmount)]" {
		t.Errorf("Path(1) = %v, %v", p, err)
	}
	if _, err := c.Path(9); !errors.Is(err, upcast.ErrUnknownVersion) {
		t.Errorf("Path(9): err = %v", err)
	}
}

func TestImplicitSteps(t *testing.T) {
	t.Parallel()
	const (
		av1 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`
		av2 = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string","default":"x"}]}`
		av3 = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string","default":"x"},{"name":"c","type":"double","default":1.5}]}`
		jv1 = `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`
		jv2 = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","default":"x"},"n":{"type":"object","properties":{"k":{"type":"boolean","default":true}},"default":{}}},"additionalProperties":false}`
		pv1 = "syntax = \"proto3\";\npackage p;\nmessage M { string a = 1; int64 big = 2; }"
		pv2 = "syntax = \"proto3\";\npackage p;\nmessage M { string renamed = 1; int64 big = 2; int32 added = 3; }"
	)
	for _, tc := range []struct {
		name    string
		typ     compat.SchemaType
		texts   []string
		from    int
		payload []byte
		want    map[string]any
		steps   string
	}{
		{"avro promotion and defaults in one resolution", compat.Avro, []string{av1, av2, av3}, 1,
			encodeAvro(t, av1, map[string]any{"a": 7}),
			map[string]any{"a": int64(7), "b": "x", "c": 1.5}, "[v1→v3 implicit(AVRO resolution)]"},
		{"avro v2 to v3", compat.Avro, []string{av1, av2, av3}, 2,
			encodeAvro(t, av2, map[string]any{"a": int64(7), "b": "y"}),
			map[string]any{"a": int64(7), "b": "y", "c": 1.5}, "[v2→v3 implicit(AVRO resolution)]"},
		{"json defaults, nested", compat.JSON, []string{jv1, jv2}, 1, []byte(`{"a":1}`),
			map[string]any{"a": 1.0, "b": "x", "n": map[string]any{"k": true}}, "[v1→v2 implicit(JSON Schema defaults)]"},
		{"protobuf by field number", compat.Protobuf, []string{pv1, pv2}, 1,
			[]byte{0x0a, 0x02, 'h', 'i', 0x10, 0x05},
			map[string]any{"renamed": "hi", "big": "5", "added": 0.0}, "[v1→v2 implicit(PROTOBUF field numbers)]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, err := upcast.New(upcast.WithSource(staticSource(t, "s", tc.typ, tc.texts...)))
			must(t, err)
			r, err := u.Upcast(t.Context(), upcast.Event{Subject: "s", Version: tc.from, Payload: tc.payload})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(r.Steps); got != tc.steps {
				t.Errorf("steps = %s, want %s", got, tc.steps)
			}
			v, _ := r.Value()
			if !reflect.DeepEqual(v, tc.want) {
				t.Errorf("value = %#v, want %#v", v, tc.want)
			}
		})
	}
}

func TestGapsFoundAtBuild(t *testing.T) {
	t.Parallel()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)
	steps := upcast.NewSteps()
	must(t, steps.Register("orders", 2, 3, "", func(v map[string]any) (map[string]any, error) { return v, nil }))
	u, err := upcast.New(upcast.WithSource(src), upcast.WithSteps(steps))
	must(t, err)
	err = u.Build(t.Context(), "orders")
	var gap *upcast.GapError
	if !errors.As(err, &gap) || !errors.Is(err, upcast.ErrMissingStep) {
		t.Fatalf("Build: err = %v, want a *GapError", err)
	}
	if len(gap.Gaps) != 1 || gap.Gaps[0].From != 1 || gap.Gaps[0].Stuck != 1 || gap.Gaps[0].Next != 2 {
		t.Fatalf("gaps = %+v, want v1 stuck before v2", gap.Gaps)
	}
	for _, want := range []string{"no step registered", "no UPGRADE migration rule on v2", "AVRO_READER_FIELD_MISSING_DEFAULT at .orderId"} {
		if !strings.Contains(gap.Gaps[0].Reason, want) {
			t.Errorf("reason %q lacks %q", gap.Gaps[0].Reason, want)
		}
	}
	// An event of a version with a gap fails loudly.
	_, err = u.Upcast(t.Context(), upcast.Event{Subject: "orders", Version: 1, Payload: []byte{}})
	var ue *upcast.Error
	if !errors.As(err, &ue) || !errors.Is(err, upcast.ErrMissingStep) || ue.Subject != "orders" {
		t.Errorf("Upcast: err = %v", err)
	}
}

func TestDowncasters(t *testing.T) {
	t.Parallel()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)
	steps := orderSteps(t)
	must(t, steps.Register("orders", 3, 2, "amountToCents", func(v map[string]any) (map[string]any, error) {
		amount, ok := v["amount"].(*big.Rat)
		if !ok {
			return nil, fmt.Errorf("amount is %T", v["amount"])
		}
		cents := new(big.Rat).Mul(amount, big.NewRat(100, 1))
		if !cents.IsInt() {
			return nil, fmt.Errorf("amount %s has fractions of a cent", amount.FloatString(4))
		}
		delete(v, "amount")
		delete(v, "currency")
		v["totalCents"] = cents.Num().Int64()
		return v, nil
	}))
	u, err := upcast.New(upcast.WithSource(src), upcast.WithSteps(steps), upcast.WithTarget("orders", 2), upcast.WithSubject("orders"))
	must(t, err)
	v3 := map[string]any{"orderId": "o-9", "customer": map[string]any{"name": "Bob", "email": map[string]any{"string": "b@x"}}, "amount": rat("5.10"), "currency": "EUR"}
	r, err := u.Upcast(t.Context(), upcast.Event{Payload: wire(3, encodeAvro(t, orderV3, v3))})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := r.Value()
	want := map[string]any{"orderId": "o-9", "customer": map[string]any{"name": "Bob", "email": "b@x"}, "totalCents": int64(510)}
	if !upcast.Equal(got, want) || fmt.Sprint(r.Steps) != "[v3→v2 go(amountToCents)]" {
		t.Errorf("downcast = %v via %v, want %v", got, r.Steps, want)
	}
	// v1 events still upcast to the target v2.
	r, err = u.Upcast(t.Context(), upcast.Event{Payload: wire(1, encodeAvro(t, orderV1, map[string]any{"id": "o-1", "customer": "Ada", "totalCents": int64(1)}))})
	if err != nil || fmt.Sprint(r.Steps) != "[v1→v2 go(splitCustomer)]" {
		t.Errorf("v1 to target v2: %v, %v", r, err)
	}
	// Without the downcaster, v3 has no path to v2.
	u2, _ := upcast.New(upcast.WithSource(src), upcast.WithSteps(orderSteps(t)), upcast.WithTarget("orders", 2))
	var gap *upcast.GapError
	if err := u2.Build(t.Context(), "orders"); !errors.As(err, &gap) || len(gap.Gaps) != 1 || gap.Gaps[0].From != 3 ||
		!strings.Contains(gap.Gaps[0].Reason, "no DOWNGRADE migration rule on v3") {
		t.Errorf("Build without downcaster: %v", err)
	}
}

func TestLongestHandWrittenJumpWins(t *testing.T) {
	t.Parallel()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)
	steps := orderSteps(t)
	must(t, steps.Register("orders", 1, 3, "direct", func(v map[string]any) (map[string]any, error) {
		return map[string]any{"orderId": v["id"], "customer": map[string]any{"name": v["customer"]}, "amount": big.NewRat(1, 1)}, nil
	}))
	u, _ := upcast.New(upcast.WithSource(src), upcast.WithSteps(steps), upcast.WithSubject("orders"))
	r, err := u.Upcast(t.Context(), upcast.Event{Version: 1, Payload: encodeAvro(t, orderV1, map[string]any{"id": "a", "customer": "C", "totalCents": int64(5)})})
	if err != nil || fmt.Sprint(r.Steps) != "[v1→v3 go(direct)]" {
		t.Fatalf("steps %v, err %v", r, err)
	}
	v, _ := r.Value()
	// Missing fields with defaults or nullable types are filled in.
	want := map[string]any{"orderId": "a", "customer": map[string]any{"name": "C", "email": nil}, "amount": rat("1"), "currency": "EUR"}
	if !upcast.Equal(v, want) {
		t.Errorf("value %v, want %v", v, want)
	}
}

func TestFailuresAreTyped(t *testing.T) {
	t.Parallel()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)
	steps := upcast.NewSteps()
	steps.MustRegister("orders", 1, 2, "split", func(v map[string]any) (map[string]any, error) {
		if v["customer"] == "boom" {
			return nil, errors.New("cannot split boom")
		}
		if v["customer"] == "panic" {
			var m map[string]any
			m["x"] = 1 // nil map write
		}
		if v["customer"] == "wrong" {
			return map[string]any{"orderId": v["id"], "customer": 42, "totalCents": v["totalCents"]}, nil
		}
		return map[string]any{"orderId": v["id"], "customer": map[string]any{"name": v["customer"]}, "totalCents": v["totalCents"]}, nil
	})
	steps.MustRegister("orders", 2, 3, "cents", func(v map[string]any) (map[string]any, error) {
		v["amount"] = "not a number"
		delete(v, "totalCents")
		return v, nil
	})
	v1 := func(customer string) []byte {
		return wire(1, encodeAvro(t, orderV1, map[string]any{"id": "o", "customer": customer, "totalCents": int64(1)}))
	}
	for _, tc := range []struct {
		name       string
		validation upcast.Validation
		ev         upcast.Event
		kind       error
		step       string
		msg        string
	}{
		{"unknown schema ID", upcast.ValidateTarget, upcast.Event{ID: "e1", Payload: wire(77, nil)}, upcast.ErrUnknownVersion, "",
			`upcast event "e1" of orders (schema ID 77): unknown writer version: schema ID 77 is not a version of orders`},
		{"unknown version", upcast.ValidateTarget, upcast.Event{ID: "e2", Version: 9}, upcast.ErrUnknownVersion, "", "orders has no version 9 (versions [1 2 3])"},
		{"no header", upcast.ValidateTarget, upcast.Event{ID: "e3", Payload: []byte(`{"a":1}`)}, upcast.ErrUnknownVersion, "",
			"the event names no version or schema ID, and payload starts with byte 0x7b"},
		{"truncated payload", upcast.ValidateTarget, upcast.Event{ID: "e4", Payload: wire(1, []byte{0x02})}, upcast.ErrDecode, "", "cannot decode event"},
		{"step error", upcast.ValidateTarget, upcast.Event{ID: "e5", Payload: v1("boom")}, upcast.ErrStep, "v1→v2 go(split)", "cannot split boom"},
		{"step panic", upcast.ValidateTarget, upcast.Event{ID: "e6", Payload: v1("panic")}, upcast.ErrStep, "v1→v2 go(split)", "panic: assignment to entry in nil map"},
		{"invalid output blames the last step", upcast.ValidateTarget, upcast.Event{ID: "e7", Payload: v1("ok")}, upcast.ErrInvalidOutput, "v2→v3 go(cents)",
			`as v3: .amount: "not a number" is not a decimal number`},
		{"ValidateSteps blames the step at fault", upcast.ValidateSteps, upcast.Event{ID: "e8", Payload: v1("wrong")}, upcast.ErrInvalidOutput, "v1→v2 go(split)",
			"as v2: .customer: got int, want shop.Customer"},
		{"ValidateTarget blames the last step", upcast.ValidateTarget, upcast.Event{ID: "e9", Payload: v1("wrong")}, upcast.ErrInvalidOutput, "v2→v3 go(cents)", ".customer: got int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := upcast.New(upcast.WithSource(src), upcast.WithSteps(steps), upcast.WithSubject("orders"),
				upcast.WithValidation(tc.validation), upcast.WithRefreshInterval(0))
			orig := append([]byte(nil), tc.ev.Payload...)
			_, err := u.Upcast(t.Context(), tc.ev)
			var ue *upcast.Error
			if !errors.As(err, &ue) || !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want an *Error of kind %v", err, tc.kind)
			}
			if ue.EventID != tc.ev.ID || ue.Subject != "orders" {
				t.Errorf("identity: %+v", ue)
			}
			step := ""
			if ue.Step != nil {
				step = ue.Step.String()
			}
			if step != tc.step {
				t.Errorf("step = %q, want %q", step, tc.step)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q lacks %q", err, tc.msg)
			}
			if string(tc.ev.Payload) != string(orig) {
				t.Errorf("payload changed")
			}
		})
	}
}

func TestStepsRegister(t *testing.T) {
	t.Parallel()
	fn := func(v map[string]any) (map[string]any, error) { return v, nil }
	s := upcast.NewSteps()
	for _, tc := range []struct {
		subject  string
		from, to int
		fn       upcast.Func
		wantErr  string
	}{
		{"a", 1, 2, fn, ""},
		{"a", 1, 2, fn, "already registered"},
		{"a", 2, 1, fn, ""},
		{"", 1, 2, fn, "empty subject"},
		{"a", 0, 2, fn, "versions start at 1"},
		{"a", 3, 3, fn, "must change the version"},
		{"a", 3, 4, nil, "nil function"},
	} {
		err := s.Register(tc.subject, tc.from, tc.to, "", tc.fn)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("Register(%q, %d, %d): err = %v, want %q", tc.subject, tc.from, tc.to, err, tc.wantErr)
		}
	}
	if got := fmt.Sprint(s.For("a")); got != "[v1→v2 go v2→v1 go]" {
		t.Errorf("For(a) = %s", got)
	}
	// A step naming a version the subject does not have yet is kept for
	// later (steps are deployed before their version is registered).
	s.MustRegister("orders", 3, 4, "", fn)
	steps := orderSteps(t)
	steps.MustRegister("orders", 3, 4, "", fn)
	u, _ := upcast.New(upcast.WithSource(staticSource(t, "orders", compat.Avro, orderV1, orderV2, orderV3)), upcast.WithSteps(steps))
	if err := u.Build(t.Context(), "orders"); err != nil {
		t.Errorf("Build = %v", err)
	}
}

func TestNewChainPicksUpNewVersions(t *testing.T) {
	t.Parallel()
	src := staticSource(t, "orders", compat.Avro, orderV1, orderV2)
	now := fixedClock()
	u, _ := upcast.New(upcast.WithSource(src), upcast.WithSteps(orderSteps(t)), upcast.WithSubject("orders"),
		upcast.WithClock(now.Now), upcast.WithRefreshInterval(10))
	must(t, u.Build(t.Context(), "orders"))
	must(t, src.Add(client.SubjectSchema{Subject: "orders", Version: 3, Schema: client.Schema{ID: 3, Text: orderV3}}))
	v3 := wire(3, encodeAvro(t, orderV3, map[string]any{"orderId": "o", "customer": map[string]any{"name": "n", "email": nil}, "amount": rat("1"), "currency": "EUR"}))
	// Within the refresh interval the chain does not re-read the registry.
	if _, err := u.Upcast(t.Context(), upcast.Event{Payload: v3}); !errors.Is(err, upcast.ErrUnknownVersion) {
		t.Fatalf("before the interval: err = %v", err)
	}
	now.Advance(11)
	r, err := u.Upcast(t.Context(), upcast.Event{Payload: v3})
	if err != nil || !r.FastPath() || r.To != 3 {
		t.Fatalf("after the interval: %v, %v", r, err)
	}
	c, _ := u.Chain(t.Context(), "orders")
	if c.Target() != 3 {
		t.Errorf("target after refresh = %d, want the new latest 3", c.Target())
	}
}

// TestUpcastIntoReusesResult upcasts several events into one Result: each
// call overwrites it whole, the values handed out stay the caller's, and
// a failure leaves it zeroed.
func TestUpcastIntoReusesResult(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	var r upcast.Result
	var kept []map[string]any
	for i, cents := range []int64{1234, 50} {
		ev := upcast.Event{ID: fmt.Sprint("e", i), Version: 1, Payload: encodeAvro(t, orderV1, map[string]any{"id": fmt.Sprint("o-", i), "customer": "Ada", "totalCents": cents})}
		must(t, u.UpcastInto(t.Context(), ev, &r))
		v, err := r.Value()
		must(t, err)
		if r.EventID != ev.ID || r.From != 1 || r.To != 3 || len(r.Steps) != 2 {
			t.Errorf("event %d: Result %+v", i, r)
		}
		kept = append(kept, v)
	}
	if !upcast.Equal(kept[0]["amount"], rat("12.34")) || !upcast.Equal(kept[1]["amount"], rat("0.5")) || kept[0]["orderId"] != "o-0" {
		t.Errorf("values kept across calls changed: %v", kept)
	}
	err := u.UpcastInto(t.Context(), upcast.Event{ID: "bad", Version: 1, Payload: []byte{0x02}}, &r)
	if !errors.Is(err, upcast.ErrDecode) || r.EventID != "" || r.From != 0 || r.Steps != nil {
		t.Errorf("after a failure: err = %v, Result %+v; want ErrDecode and a zero Result", err, r)
	}
}
