package governance_test

import (
	"testing"

	"github.com/charter-dev/charter/registry/governance"
)

// TestDeprecationSentenceCountsDays: the changelog's TTL reads "1 day",
// never "1 days".
func TestDeprecationSentenceCountsDays(t *testing.T) {
	for _, tc := range []struct {
		ttl  int
		want string
	}{
		{0, "field `carrier_code` deprecated, TTL 0 days"},
		{1, "field `carrier_code` deprecated, TTL 1 day"},
		{2, "field `carrier_code` deprecated, TTL 2 days"},
	} {
		if got := governance.DeprecationSentence(".carrier_code", tc.ttl, "", ""); got != tc.want {
			t.Errorf("DeprecationSentence(ttl %d) = %q, want %q", tc.ttl, got, tc.want)
		}
	}
}

// TestDaysCounts: the day counts of deprecation findings ("60 days left",
// "1 day left") come from rule.Plural.
func TestDaysCounts(t *testing.T) {
	for n, want := range map[int]string{0: "0 days", 1: "1 day", 2: "2 days"} {
		if got := governance.Days(n); got != want {
			t.Errorf("Days(%d) = %q, want %q", n, got, want)
		}
	}
}
