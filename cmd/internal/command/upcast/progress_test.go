package upcast

import (
	"bytes"
	"testing"
)

func TestShowProgress(t *testing.T) {
	var b bytes.Buffer
	on, off := true, false
	if !showProgress(&b, &on, false) || showProgress(&b, &off, false) || showProgress(&b, &on, true) || showProgress(&b, nil, false) {
		t.Error("showProgress: want forced on, forced off, --no-progress wins, and off for a non-terminal")
	}
}
