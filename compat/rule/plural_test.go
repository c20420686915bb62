package rule_test

import (
	"testing"

	"github.com/charter-dev/charter/compat/rule"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "day", "0 days"},
		{1, "day", "1 day"},
		{2, "day", "2 days"},
		{-1, "day", "-1 day"},
		{-2, "day", "-2 days"},
		{0, "version", "0 versions"},
		{1, "version", "1 version"},
		{2, "version", "2 versions"},
		{1, "consumer", "1 consumer"},
		{12, "consumer", "12 consumers"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{2, "key", "2 keys"},
		{2, "match", "2 matches"},
		{2, "dead letter", "2 dead letters"},
		{1, "dead letter", "1 dead letter"},
	} {
		if got := rule.Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
