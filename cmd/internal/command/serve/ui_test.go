package serve_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
)

// TestUI: charter serve mounts the web UI under /ui/ and sends browsers
// asking for / there; --ui=false serves the API alone.
func TestUI(t *testing.T) {
	for _, on := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan string, 1)
		done := make(chan error, 1)
		cfg := serve.Config{Listen: "127.0.0.1:0", DB: filepath.Join(t.TempDir(), "charter.db"), MaxBodyBytes: 1 << 20, MaxSchema: 1 << 20,
			ReadHeaderTimeout: serve.DefaultReadHeaderTimeout, ReadTimeout: serve.DefaultReadTimeout, IdleTimeout: serve.DefaultIdleTimeout, UI: on}
		go func() {
			done <- serve.Run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), func(a string) { ready <- a })
		}()
		var addr string
		select {
		case addr = <-ready:
		case err := <-done:
			t.Fatalf("serve: %v", err)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		status := func(path, accept string) (int, string) {
			req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
			req.Header.Set("Accept", accept)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Location")
		}
		subjects, _ := status("/ui/subjects", "text/html")
		root, loc := status("/", "text/html,application/xhtml+xml")
		api, _ := status("/", "application/json")
		switch {
		case on && (subjects != http.StatusOK || root != http.StatusFound || loc != "/ui/" || api != http.StatusOK):
			t.Errorf("--ui: /ui/subjects %d, / from a browser %d to %q, / from a client %d", subjects, root, loc, api)
		case !on && (subjects != http.StatusNotFound || root != http.StatusOK):
			t.Errorf("--ui=false: /ui/subjects %d, / %d; want 404 and the API's 200", subjects, root)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

func TestUIFlagDefault(t *testing.T) {
	cmd := serve.NewCommand("serve", serve.Deps{Stderr: io.Discard})
	if f := cmd.Flags().Lookup("ui"); f == nil || f.DefValue != "true" {
		t.Fatalf("--ui flag %+v, want default true", f)
	}
}
