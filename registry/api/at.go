package api

import (
	"net/http"
	"time"

	"github.com/charter-dev/charter/registry/srerr"
)

// atParam reads the optional `at` query parameter: the moment a dry run
// or a state read judges as of, an RFC 3339 time or a date (YYYY-MM-DD,
// midnight UTC). Absent is the zero time (the registry's clock); anything
// else is 40002.
func atParam(r *http.Request) (time.Time, error) {
	a := r.URL.Query().Get("at")
	if a == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, a)
	if err != nil {
		t, err = time.Parse(time.DateOnly, a)
	}
	if err != nil {
		return time.Time{}, srerr.New(srerr.ErrBadRequest, "Invalid at %q: want an RFC 3339 time or a date (YYYY-MM-DD)", a)
	}
	if t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, srerr.New(srerr.ErrBadRequest, "Invalid at %q: want a moment between 1970 and 9999", a)
	}
	return t.UTC(), nil
}
