package compat_test

import (
	"context"
	"errors"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// countingFormat is toyFormat counting its CheckRead calls, and calling
// onCall (when set) before each.
type countingFormat struct {
	toyFormat
	calls  *int
	onCall func(n int)
}

func (f countingFormat) CheckRead(reader, writer compat.Schema) []compat.Violation {
	*f.calls++
	if f.onCall != nil {
		f.onCall(*f.calls)
	}
	return f.toyFormat.CheckRead(reader, writer)
}

// TestCheckContextStops: CheckContext makes no comparison once ctx has
// ended, and stops after the comparison during which it ends, with ctx's
// error and no verdict (a transitive check over many versions no longer
// runs on for a client that has gone).
func TestCheckContextStops(t *testing.T) {
	var prev []compat.Previous
	for v := 1; v <= 10; v++ {
		s, _ := toyFormat{}.Parse("a b?", nil)
		prev = append(prev, compat.Previous{Version: v, Schema: s})
	}
	next, _ := toyFormat{}.Parse("a b? c?", nil)

	calls := 0
	res, err := compat.CheckContext(context.Background(), countingFormat{calls: &calls}, compat.FullTransitive, next, prev)
	if err != nil || calls != 20 || !res.Compatible() {
		t.Fatalf("live context: %d comparisons, %v, compatible %t; want 20, nil, true", calls, err, res.Compatible())
	}

	done, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	if _, err := compat.CheckContext(done, countingFormat{calls: &calls}, compat.FullTransitive, next, prev); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("ended context: %d comparisons, error %v; want 0 and context.Canceled", calls, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls = 0
	f := countingFormat{calls: &calls, onCall: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	res, err = compat.CheckContext(ctx, f, compat.FullTransitive, next, prev)
	if !errors.Is(err, context.Canceled) || calls != 3 || len(res.Findings) != 0 {
		t.Errorf("ended during comparison 3: %d comparisons, error %v, %d findings; want 3, context.Canceled, none", calls, err, len(res.Findings))
	}
}
