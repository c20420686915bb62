package registry

// SetSummaryWarmHook sets the function warmSummary calls in its read
// transaction once a summary is built (nil: none), for the tests of
// package registry_test.
func SetSummaryWarmHook(fn func(subject string)) { summaryWarmHook = fn }
