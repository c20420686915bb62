package serve_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
)

// TestFlagValidation: limits and timeouts that cannot work are usage
// errors naming the flag, before any database is opened.
func TestFlagValidation(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--max-body-bytes", "0"}, "invalid --max-body-bytes 0: want a positive number of bytes"},
		{[]string{"--max-body-bytes", "-1"}, "invalid --max-body-bytes -1"},
		{[]string{"--max-schema-bytes", "0"}, "invalid --max-schema-bytes 0"},
		{[]string{"--max-schema-bytes", "-5"}, "invalid --max-schema-bytes -5"},
		{[]string{"--read-timeout", "0s"}, "invalid --read-timeout 0s: want a positive duration"},
		{[]string{"--read-header-timeout", "-1s"}, "invalid --read-header-timeout -1s"},
		{[]string{"--idle-timeout", "0"}, "invalid --idle-timeout 0s"},
		{[]string{"--cache-bytes", "0"}, "invalid --cache-bytes 0: want a positive number of bytes, or -1 for none"},
		{[]string{"--cache-bytes", "-2"}, "invalid --cache-bytes -2"},
		{[]string{"--parsed-cache-bytes", "0"}, "invalid --parsed-cache-bytes 0: want a positive number of bytes, or -1 for none"},
		{[]string{"--parsed-cache-bytes", "-5"}, "invalid --parsed-cache-bytes -5"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "charter.db")
			cmd := serve.NewCommand("serve", serve.Deps{Stderr: io.Discard})
			cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0", "--db", db}, tc.args...))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the database was created (stat: %v) although the flags were refused", err)
			}
		})
	}
}

// TestSlowRequestsAreCut: a client that sends headers and part of a body,
// or part of the headers, and then nothing, loses its connection after
// the read timeouts instead of holding it; normal requests still work.
func TestSlowRequestsAreCut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	ready := make(chan string, 1)
	done := make(chan error, 1)
	cfg := serve.Config{
		Listen:            "127.0.0.1:0",
		DB:                filepath.Join(t.TempDir(), "charter.db"),
		MaxBodyBytes:      1 << 20,
		MaxSchema:         1 << 20,
		ReadHeaderTimeout: 200 * time.Millisecond,
		ReadTimeout:       400 * time.Millisecond,
		IdleTimeout:       time.Second,
	}
	go func() { done <- serve.Run(ctx, cfg, log, func(a string) { ready <- a }) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	partial := map[string]string{
		"part of a body":  "POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"schema\":",
		"part of headers": "POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Ty",
	}
	for name, raw := range partial {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, raw); err != nil {
				t.Fatal(err)
			}
			// Far above the timeouts: reaching it means the server kept
			// the connection.
			if err := conn.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server still held the connection after 15s (read %q)", got)
			}
			if len(got) > 0 && !strings.HasPrefix(string(got), "HTTP/1.1 4") {
				t.Errorf("answer %q, want none or a 4xx", got)
			}
		})
	}
	resp, err := http.Get("http://" + addr + "/subjects")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "[]" {
		t.Errorf("GET /subjects after the slow clients: %d %s", resp.StatusCode, body)
	}
}
