package clitest_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// slowProxy forwards to target, holding each /admin/ request for delay
// first: an export or import that takes long enough to report.
func slowProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/admin/") {
			time.Sleep(delay)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var transferLine = regexp.MustCompile(`^(export|import): \d+(\.\d)? (B|kB|MB) in 1\.\d+s \(\d+(\.\d)? (B|kB|MB)/s\)\n$`)

// TestExportImportProgress: off a terminal, an export or import that
// takes a second or more prints one summary line on stderr (bytes, time,
// rate); a quick one and --no-progress print none.
func TestExportImportProgress(t *testing.T) {
	t.Parallel()
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "events-value", habitEvent)
	clitest.Register(t, svc, "shipments-value", habitShipment)
	dir := t.TempDir()
	file := filepath.Join(dir, "dump.json")

	slow := slowProxy(t, url, 1100*time.Millisecond)
	r := clitest.Run(t, "export", "--registry", slow, "--file", file)
	if r.Code != cli.ExitOK || !transferLine.MatchString(r.Stderr) || !strings.HasPrefix(r.Stderr, "export: ") || !strings.HasPrefix(r.Stdout, "exported 2 schemas") {
		t.Errorf("slow export: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := clitest.Run(t, "export", "--registry", url, "--file", file); r.Code != cli.ExitOK || r.Stderr != "" {
		t.Errorf("quick export: exit %d, stderr %q; want no progress line", r.Code, r.Stderr)
	}
	if r := clitest.Run(t, "export", "--registry", slow, "--file", file, "--no-progress"); r.Code != cli.ExitOK || r.Stderr != "" {
		t.Errorf("export --no-progress: exit %d, stderr %q", r.Code, r.Stderr)
	}

	_, empty, _ := clitest.NewRegistry(t)
	r = clitest.Run(t, "import", file, "--registry", slowProxy(t, empty, 1100*time.Millisecond))
	if r.Code != cli.ExitOK || !transferLine.MatchString(r.Stderr) || !strings.HasPrefix(r.Stderr, "import: ") || !strings.HasPrefix(r.Stdout, "imported 2 schemas") {
		t.Errorf("slow import: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}
