package contracts_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// newRegistry runs the real registry handler over SQLite with a fixed
// clock and returns its service and URL.
func newRegistry(t *testing.T) (*registry.Service, string) {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, []compat.Format{avro.Format{}}, registry.WithLogger(log), registry.WithClock(func() time.Time { return now }))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	return svc, srv.URL
}

// transcript runs `charter --registry url args...` for each step as alice
// and returns "$ charter …", stdout, stderr and the exit code when not 0;
// it checks each exit code and that errors are one line.
func transcript(t *testing.T, url string, steps ...[]any) string {
	t.Helper()
	t.Setenv("CHARTER_ACTOR", "alice")
	var b strings.Builder
	for _, s := range steps {
		want := s[0].(int)
		args := make([]string, 0, len(s)-1)
		for _, a := range s[1:] {
			args = append(args, a.(string))
		}
		code, out, errs := run(t, append([]string{"--registry", url}, args...)...)
		fmt.Fprintf(&b, "$ charter %s\n%s", strings.Join(args, " "), out)
		if errs != "" {
			fmt.Fprintf(&b, "stderr: %s", errs)
		}
		if code != 0 {
			fmt.Fprintf(&b, "exit %d\n", code)
		}
		b.WriteString("\n")
		if code != want {
			t.Errorf("charter %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
		}
		if code == cli.ExitError && (!strings.HasPrefix(errs, "charter: ") || strings.Count(errs, "\n") != 1) {
			t.Errorf("charter %s: stderr %q, want one line", strings.Join(args, " "), errs)
		}
	}
	return strings.ReplaceAll(b.String(), url, "$REGISTRY")
}

func step(code int, args ...string) []any {
	out := []any{code}
	for _, a := range args {
		out = append(out, a)
	}
	return out
}

// TestPublishGolden publishes pact files to a registry over HTTP: a
// contract the latest version keeps, one it breaks (stored, FAIL printed,
// exit 0), JSON output and the errors a person meets.
func TestPublishGolden(t *testing.T) {
	svc, url := newRegistry(t)
	for subject, file := range map[string]string{"orders-value": "orders.avsc", "orders-next": "orders-breaking.avsc"} {
		b, err := os.ReadFile(td(file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Register(t.Context(), subject, registry.RegisterRequest{Schema: string(b)}); err != nil {
			t.Fatal(err)
		}
	}
	const ok, bad = cli.ExitOK, cli.ExitError
	got := transcript(t, url,
		step(ok, "contracts", "publish", td("invoicing.json"), "--subject", "orders-value", "--consumer-version", "1.4.2", "--branch", "main"),
		step(ok, "contracts", "publish", td("invoicing.json"), "--subject", "orders-next", "--consumer-version", "1.4.2"),
		step(ok, "contracts", "publish", td("invoicing.json"), "--subject", "orders-value", "--consumer", "crm", "--consumer-version", "7", "-o", "json"),
		step(bad, "contracts", "publish", td("invoicing.json"), "--consumer-version", "1"),
		step(bad, "contracts", "publish", td("invoicing.json"), "--subject", "orders-value"),
		step(bad, "contracts", "publish", td("notapact.json"), "--subject", "orders-value", "--consumer-version", "1"),
		step(bad, "contracts", "publish", td("orders.avsc"), "--subject", "orders-value", "--consumer-version", "1"),
		step(bad, "contracts", "publish", td("missing.json"), "--subject", "orders-value", "--consumer-version", "1"),
		step(bad, "contracts", "publish", td("invoicing.json"), "--subject", "payments-value", "--consumer-version", "1"),
		step(bad, "contracts", "publish", "--subject", "orders-value", "--consumer-version", "1"),
	)
	golden(t, "publish", got)

	recs, err := svc.ContractRegistry().Contracts(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, r := range recs {
		stored = append(stored, fmt.Sprintf("%s %s %s %s by %s broken=%v", r.Subject, r.Consumer, r.ConsumerVersion, r.Branch, r.By, r.Verification.Broken()))
	}
	want := []string{"orders-next invoicing 1.4.2  by alice broken=true", "orders-value crm 7  by alice broken=false", "orders-value invoicing 1.4.2 main by alice broken=false"}
	if !reflect.DeepEqual(stored, want) {
		t.Errorf("stored contracts:\n%s\nwant:\n%s", strings.Join(stored, "\n"), strings.Join(want, "\n"))
	}
}

// TestPublishHelp: the help names the required flags and has an example.
func TestPublishHelp(t *testing.T) {
	code, out, _ := run(t, "contracts", "publish", "--help")
	if code != 0 || !strings.Contains(out, "charter contracts publish pacts/") || !strings.Contains(out, "--consumer-version string") {
		t.Errorf("help (exit %d):\n%s", code, out)
	}
}
