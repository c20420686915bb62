package rule_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/compat/rule"
)

func TestDefaultSeverity(t *testing.T) {
	tests := []struct {
		r    rule.Rule
		want string
	}{
		{rule.Rule{Severity: rule.Error}, "error"},
		{rule.Rule{Severity: rule.Notice}, "notice"},
		{rule.Rule{Severity: rule.Warning, Off: true}, "off"},
	}
	for _, tt := range tests {
		if got := tt.r.DefaultSeverity(); got != tt.want {
			t.Errorf("%+v.DefaultSeverity() = %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestErrFailedWraps(t *testing.T) {
	err := fmt.Errorf("check: %w", rule.ErrFailed)
	if !errors.Is(err, rule.ErrFailed) {
		t.Error("wrapped ErrFailed does not match")
	}
}
