package web_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/evidence"
)

// TestCompareEvidenceBusy: the compare page takes an evidence slot as the
// REST API does (evidence.Acquire); with every slot taken it shows the
// verdict and says the events were not read, and reads them again once a
// slot is free.
func TestCompareEvidenceBusy(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	h := handler(t, svc, nil)
	const page = "/ui/subjects/shipments-value/compare?from=1&to=2"

	release := evidence.HoldAllSlots()
	busy := get(t, h, page, 200)
	release()
	if !strings.Contains(busy, "events not read: the server is busy") || !strings.Contains(busy, `id="verdict"`) {
		t.Errorf("compare page with every evidence slot taken lacks the verdict or the busy note:\n%s", busy)
	}
	if free := get(t, h, page, 200); !strings.Contains(free, "100 of 100 generated events read back") {
		t.Errorf("compare page after the slots are free reads no events")
	}
}
