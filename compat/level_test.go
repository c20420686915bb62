package compat_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    compat.Level
		wantErr bool
	}{
		{in: "BACKWARD", want: compat.Backward},
		{in: "backward_transitive", want: compat.BackwardTransitive},
		{in: " Full ", want: compat.Full},
		{in: "forward", want: compat.Forward},
		{in: "FORWARD_TRANSITIVE", want: compat.ForwardTransitive},
		{in: "full_transitive", want: compat.FullTransitive},
		{in: "none", want: compat.None},
		{in: "", wantErr: true},
		{in: "BACKWARDS", wantErr: true},
		{in: "FULL-TRANSITIVE", wantErr: true},
	}
	for _, tc := range tests {
		got, err := compat.ParseLevel(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseLevel(%q) = %q, want an error", tc.in, got)
			} else if !strings.Contains(err.Error(), "FULL_TRANSITIVE") {
				t.Errorf("ParseLevel(%q) error %q does not list the accepted values", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLevel(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestLevelProperties(t *testing.T) {
	tests := []struct {
		level                         compat.Level
		transitive, backward, forward bool
	}{
		{compat.None, false, false, false},
		{compat.Backward, false, true, false},
		{compat.BackwardTransitive, true, true, false},
		{compat.Forward, false, false, true},
		{compat.ForwardTransitive, true, false, true},
		{compat.Full, false, true, true},
		{compat.FullTransitive, true, true, true},
	}
	if len(tests) != len(compat.Levels) {
		t.Fatalf("table has %d levels, compat.Levels %d", len(tests), len(compat.Levels))
	}
	for i, tc := range tests {
		if compat.Levels[i] != tc.level {
			t.Errorf("Levels[%d] = %s, want %s", i, compat.Levels[i], tc.level)
		}
		if got := tc.level.Transitive(); got != tc.transitive {
			t.Errorf("%s.Transitive() = %v", tc.level, got)
		}
		if got := tc.level.Backward(); got != tc.backward {
			t.Errorf("%s.Backward() = %v", tc.level, got)
		}
		if got := tc.level.Forward(); got != tc.forward {
			t.Errorf("%s.Forward() = %v", tc.level, got)
		}
	}
	if compat.DefaultLevel != compat.Backward {
		t.Errorf("DefaultLevel = %s, want BACKWARD (Confluent's default)", compat.DefaultLevel)
	}
}
