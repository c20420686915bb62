package governance_test

import "time"

// epoch is day 0 of the tests' clock.
var epoch = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

// day returns day n of the tests' clock.
func day(n int) time.Time { return epoch.Add(time.Duration(n) * 24 * time.Hour) }
