package auth

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// LoopbackHost reports whether host, a Host header or URL host with or
// without a port (IPv6 in brackets or not), names this machine's
// loopback: localhost, a name under .localhost, or a loopback IP.
func LoopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ClientAddr is the host part of r's remote address: the key of a client
// address's limits (FailureWait, Allow for anonymous callers).
func ClientAddr(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// RetryAfter is the Retry-After value of a wait: whole seconds, rounded
// up, at least 1.
func RetryAfter(wait time.Duration) string {
	return strconv.Itoa(int(max(time.Second, wait+time.Second-1) / time.Second))
}
