package auth_test

import (
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/auth"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8081": true, "127.0.0.2": true, "[::1]:8081": true, "::1": true,
		"localhost": true, "LOCALHOST:8081": true, "ui.localhost:8081": true,
		"192.0.2.10:8081": false, "registry.example": false, "localhost.example": false, "": false,
	} {
		if got := auth.LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for wait, want := range map[time.Duration]string{0: "1", 300 * time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 2 * time.Second: "2"} {
		if got := auth.RetryAfter(wait); got != want {
			t.Errorf("RetryAfter(%s) = %s, want %s", wait, got, want)
		}
	}
}
