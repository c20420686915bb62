package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium (CHROMIUM overrides it).
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// needBrowser returns chromium's path and axe-core's source, or skips the
// test saying what is missing (fails instead in CI).
func needBrowser(t *testing.T) (string, string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true: the browser test must run)", what)
		}
		t.Skipf("skipping the browser test: %s", what)
	}
	bin := chromiumPath()
	if _, err := exec.LookPath(bin); err != nil {
		missing(bin + " not found: apt-get install chromium (or set CHROMIUM)")
	}
	axe, err := os.ReadFile(filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		missing("axe-core is not installed: cd web/testdata/axe && npm ci")
	}
	return bin, string(axe)
}

// artifactsDir is where the browser test leaves its screenshots and axe
// reports (gitignored): $CHARTER_UI_ARTIFACTS, else web/testdata/artifacts.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("CHARTER_UI_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// axeViolation is one axe-core rule a page fails.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// TestBrowser drives the UI in headless Chromium over a real server on
// the worked example: subjects, a filter, the subject, a comparison, the
// deprecations on day 0 and day 95 (countdown and readers), an extension
// granted through the form, lineage and PII; each page is screenshotted
// and checked with axe-core (no serious or critical violation), in light
// and dark themes and at 375 px wide, with no console error (a CSP
// refusal included).
func TestBrowser(t *testing.T) {
	bin, axeSource := needBrowser(t)
	svc, clk := newService(t)
	seed(t, svc, clk)
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	dir := artifactsDir(t)
	t.Logf("screenshots and axe reports: %s", dir)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 820),
		// The viewer's time zone, to see times converted from UTC.
		chromedp.Env("TZ=Asia/Tokyo"),
	}
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	// Console errors and exceptions (a CSP refusal is one) fail the test.
	var mu sync.Mutex
	var consoleErrors []string
	axeFindings := 0
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				consoleErrors = append(consoleErrors, string(m.Type)+": "+m.Text+" "+m.URL)
				mu.Unlock()
			}
		}
	}()
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(what, expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// viewShot is a screenshot of the viewport only (the README's).
	viewShot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	audit := func(name string) {
		t.Helper()
		if eval("axe loaded", `String(typeof axe !== "undefined")`) != "true" {
			eval("inject axe", axeSource+`;"ok"`)
		}
		raw := eval("axe "+name, `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(" "))}))))`)
		var vs []axeViolation
		if err := json.Unmarshal([]byte(raw), &vs); err != nil {
			t.Fatalf("axe %s: %v: %s", name, err, raw)
		}
		_ = os.WriteFile(filepath.Join(dir, name+".axe.json"), []byte(raw), 0o644)
		mu.Lock()
		axeFindings += len(vs)
		mu.Unlock()
		for _, v := range vs {
			msg := fmt.Sprintf("axe %s: %s (%s): %s at %s", name, v.ID, v.Impact, v.Help, strings.Join(v.Targets, "; "))
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	xtext := func(xpath string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.Search(xpath), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("read %s: %v", xpath, err)
		}
		return s
	}
	want := func(where, got string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(got, s) {
				t.Errorf("%s: %q lacks %q", where, got, s)
			}
		}
	}
	visit := func(name, path string) {
		t.Helper()
		do("open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("main")))
		shot(name)
		audit(name)
	}
	// waitURL waits until the tab has loaded a URL containing sub (after a
	// click that navigates).
	waitURL := func(sub string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			loc := eval("location", `document.readyState === "complete" ? location.href : ""`)
			if strings.Contains(loc, sub) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the tab did not load a URL with %q (at %q)", sub, loc)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	media := func(scheme string) {
		t.Helper()
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatalf("emulate %s: %v", scheme, err)
		}
	}

	// Subjects, then a filter typed into the search form.
	visit("01-subjects", "/ui/subjects")
	want("subjects count", text("#count"), "of 3 matching subjects")
	do("keyboard", chromedp.KeyEvent("\t"))
	if focused := eval("focus", `document.activeElement.className`); focused != "skip" {
		t.Errorf("the first Tab focuses %q, want the skip link", focused)
	}
	do("filter", chromedp.SendKeys(chromedp.CSS("#q"), "ship"), chromedp.Click(chromedp.CSS(`form.filters button[type="submit"]`)))
	waitURL("q=ship")
	want("filtered count", text("#count"), "of 1 matching subject")
	shot("02-subjects-filtered")
	// The format select submits the form as it changes (app.js).
	do("format filter", chromedp.SetValue(chromedp.CSS("#format"), "PROTOBUF"))
	// (SetValue may fire the change itself; then the page is already
	// navigating.)
	eval("change", `(() => { const f = document.querySelector("#format"); if (f && !location.search.includes("format=")) f.dispatchEvent(new Event("change", {bubbles: true})); return "ok"; })()`)
	waitURL("format=PROTOBUF")
	want("format filter", text("#count"), "No subject matches")

	// The subject, from the list.
	do("subject", chromedp.Navigate(srv.URL+"/ui/subjects?q=ship"), chromedp.Click(chromedp.CSS(`a[href="/ui/subjects/shipments-value"]`)))
	waitURL("/ui/subjects/shipments-value")
	want("subject", text("h1"), "shipments-value")
	want("subject schema", text("ol.code"), "deprecated, 90 days left", "PII")
	shot("03-subject")
	viewShot("readme-subject")
	audit("03-subject")

	// Compare, from the subject's link.
	do("compare", chromedp.Click(chromedp.CSS(`a[href^="/ui/subjects/shipments-value/compare"]`)))
	waitURL("/compare?")
	want("compare", text("#verdict"), "BACKWARD", "compatible", "minor")
	want("compare notes", text("#right-head + div"), "FIELD_ADDED")
	want("compare evidence", text("#evidence"), "100 of 100 generated events read back (all with the reader's default)")
	shot("04-compare")
	audit("04-compare")
	visit("05-compare-findings", "/ui/subjects/customers-value/compare?from=1&to=2&level=FULL")
	want("findings", text("#verdict"), "4 compatibility findings")
	want("findings evidence", text("#evidence"), "200 refused")
	want("counterexample", text("#to-L4 .evidence"), "Counterexample, refused at #/properties/id", `"id": ""`, "got string, want integer")

	// Deprecations on day 0: 90 days left, five readers.
	visit("06-deprecations-day0", "/ui/deprecations")
	row := `//tr[th/a[contains(., "carrier_code")]]`
	want("day 0 row", xtext(row), "90 days left", "analytics", "billing", "customs", "returns", "tracking")
	local := xtext(row + `//time`)
	utc := eval("utc", `document.evaluate('`+row+`//time', document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue.title`)
	if utc != "2026-04-05 09:30 UTC" || local == "2026-04-05" || local == "" {
		t.Errorf("expiry shows %q (title %q): want the viewer's date, UTC on hover", local, utc)
	}

	// Day 95: expired, the same five still read it.
	clk.Day(95)
	visit("07-deprecations-day95", "/ui/deprecations")
	want("day 95 row", xtext(row), "expired", "expired 5 days ago", "analytics", "billing", "customs", "returns", "tracking")

	// Grant billing an extension through the form, and see it listed.
	do("open item", chromedp.Click(chromedp.Search(row+`/th/a`)))
	waitURL("/deprecations/field:")
	want("item", text("#countdown"), "expired 5 days ago")
	want("readers", text("#reading"), "analytics", "billing", "customs", "returns", "tracking")
	shot("08-deprecation-day95")
	audit("08-deprecation-day95")
	do("grant", chromedp.SendKeys(chromedp.CSS("#ext-consumer"), "billing"), chromedp.SetValue(chromedp.CSS("#ext-days"), "45"),
		chromedp.SendKeys(chromedp.CSS("#ext-reason"), "moving to carrier.code in the Q2 release"),
		chromedp.SendKeys(chromedp.CSS("#ext-approver"), "head of logistics"),
		chromedp.Click(chromedp.CSS(`#grant button[type="submit"]`)))
	waitURL("done=extended")
	want("flash", text(".flash"), "The extension is granted.")
	want("extended", text("#extended"), "billing", "until")
	want("extensions table", text("#extensions"), "billing", "head of logistics", "45 days left")
	if s := text("#reading"); strings.Contains(s, "billing") {
		t.Errorf("billing still listed as reading without an extension: %q", s)
	}
	shot("09-extension-granted")
	audit("09-extension-granted")
	visit("10-deprecations-after-grant", "/ui/deprecations")
	viewShot("readme-deprecations")
	want("row after grant", xtext(row), "billing until")

	// Lineage of the subject and of carrier_code; PII map; team; audit; rules.
	visit("11-lineage", "/ui/subjects/shipments-value/lineage")
	if n, _ := strconv.Atoi(eval("svg", `String(document.querySelectorAll("svg.graph g.node").length)`)); n < 1+1+12 {
		t.Errorf("lineage graph has %d nodes, want a producer, the subject, its fields and 12 consumers", n)
	}
	visit("12-lineage-field", "/ui/subjects/shipments-value/lineage?field=.carrier_code")
	want("who breaks", text("#impact"), "analytics", "billing", "customs", "returns", "tracking")
	visit("13-pii", "/ui/pii")
	want("pii", text("#exposures"), "recipient_email", "email")
	want("suspects", text("#suspects"), "customer_name")
	visit("14-team", "/ui/teams/billing")
	want("team", text("#migrate"), "carrier_code")
	visit("15-audit", "/ui/audit")
	visit("16-rules", "/ui/rules")

	// Dark theme.
	media("dark")
	visit("17-deprecations-dark", "/ui/deprecations")
	visit("18-subject-dark", "/ui/subjects/shipments-value")
	media("light")

	// 375 px wide: nothing wider than the screen but the scrolling regions.
	do("narrow", chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	for _, p := range []struct{ name, path string }{{"19-subjects-375", "/ui/subjects"}, {"20-subject-375", "/ui/subjects/shipments-value"}, {"21-deprecations-375", "/ui/deprecations"}} {
		visit(p.name, p.path)
		if w, _ := strconv.Atoi(eval("width", `String(document.documentElement.scrollWidth)`)); w > 375 {
			t.Errorf("%s is %d px wide at 375 px", p.path, w)
		}
	}
	do("reset", chromedp.ResetViewport())

	mu.Lock()
	defer mu.Unlock()
	t.Logf("axe-core: %d violations below serious on 21 pages (see the .axe.json reports)", axeFindings)
	for _, e := range consoleErrors {
		t.Errorf("browser %s", e)
	}
}
