package serve_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/registry/auth"
)

// start runs serve.Run with cfg until the test ends and returns its
// address, or the error Run stopped with before serving.
func start(t *testing.T, cfg serve.Config) (string, error) {
	t.Helper()
	if cfg.DB == "" {
		cfg.DB = filepath.Join(t.TempDir(), "charter.db")
	}
	cfg.MaxBodyBytes, cfg.MaxSchema = 1<<20, 1<<20
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), func(a string) { ready <- a })
	}()
	select {
	case a := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		return a, nil
	case err := <-done:
		cancel()
		return "", err
	}
}

// TestOpenRegistryOnlyOnLoopback: without authentication a non-loopback
// address is refused with the reason and the two ways out; loopback and
// --insecure-no-auth serve.
func TestOpenRegistryOnlyOnLoopback(t *testing.T) {
	_, err := start(t, serve.Config{Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "without authentication: it is not a loopback address") ||
		!strings.Contains(err.Error(), "--auth-config") || !strings.Contains(err.Error(), "--insecure-no-auth") {
		t.Fatalf("0.0.0.0 without auth: %v; want a refusal naming --auth-config and --insecure-no-auth", err)
	}
	if _, err := start(t, serve.Config{Listen: "0.0.0.0:0", Security: serve.Security{InsecureNoAuth: true}}); err != nil {
		t.Errorf("0.0.0.0 with --insecure-no-auth: %v", err)
	}
	if _, err := start(t, serve.Config{Listen: "localhost:0"}); err != nil {
		t.Errorf("localhost without auth: %v", err)
	}
}

// pki is a test CA with a server certificate for 127.0.0.1 and a client
// certificate, written as PEM files.
type pki struct {
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
	client                    tls.Certificate
}

func newPKI(t *testing.T, dir, clientCN string) *pki {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "charter test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) ([]byte, *ecdsa.PrivateKey) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	pemFile := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := &pki{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.caFile = pemFile("ca.pem", "CERTIFICATE", caDER)
	srvDER, srvKey := issue(2, "charter", x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	p.certFile = pemFile("server.pem", "CERTIFICATE", srvDER)
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	p.keyFile = pemFile("server-key.pem", "EC PRIVATE KEY", keyDER)
	cliDER, cliKey := issue(3, clientCN, x509.ExtKeyUsageClientAuth, nil)
	p.client = tls.Certificate{Certificate: [][]byte{cliDER}, PrivateKey: cliKey}
	return p
}

// httpsClient trusts p's CA and presents its client certificate when
// withCert.
func (p *pki) httpsClient(withCert bool) *http.Client {
	cfg := &tls.Config{RootCAs: p.pool}
	if withCert {
		cfg.Certificates = []tls.Certificate{p.client}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

func call(c *http.Client, method, url, token, body string) (int, string, error) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("X-Charter-Actor", "mallory")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

const schemaBody = `{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"}]}"}`

// auditActors returns the actors of the audit log's entries for subject.
func auditActors(t *testing.T, c *http.Client, base, token, subject string) []string {
	t.Helper()
	status, body, err := call(c, http.MethodGet, base+"/governance/audit?subject="+subject, token, "")
	if err != nil || status != http.StatusOK {
		t.Fatalf("audit: %d %s %v", status, body, err)
	}
	var es []struct{ Actor string }
	if err := json.Unmarshal([]byte(body), &es); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Actor)
	}
	return out
}

// TestTLSWithAuth: over HTTPS a verified client certificate names a
// principal of the auth file (its CN), a token still works without one,
// and a request with neither is 401; the audit log names the principal,
// never the X-Charter-Actor header.
func TestTLSWithAuth(t *testing.T) {
	dir := t.TempDir()
	p := newPKI(t, dir, "svc-orders")
	token, digest, _ := auth.NewToken()
	authFile := filepath.Join(dir, "auth.yaml")
	if err := os.WriteFile(authFile, []byte("admins: [ops]\nprincipals:\n  - name: svc-orders\n    teams: [orders]\n  - name: ops\n    tokens_sha256: ["+digest+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, err := start(t, serve.Config{Listen: "127.0.0.1:0", Security: serve.Security{AuthConfig: authFile,
		TLSCert: p.certFile, TLSKey: p.keyFile, TLSClientCA: p.caFile}})
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + addr
	if status, body, err := call(p.httpsClient(true), http.MethodPost, base+"/subjects/orders-value/versions", "", schemaBody); err != nil || status != http.StatusOK {
		t.Fatalf("register with the client certificate: %d %s %v", status, body, err)
	}
	if got := auditActors(t, p.httpsClient(false), base, token, "orders-value"); len(got) == 0 || strings.Join(got, ",") != strings.Repeat("svc-orders,", len(got)-1)+"svc-orders" {
		t.Errorf("audit actors %v, want svc-orders only", got)
	}
	if status, body, _ := call(p.httpsClient(false), http.MethodGet, base+"/subjects", "", ""); status != http.StatusUnauthorized {
		t.Errorf("no certificate, no token: %d %s; want 401", status, body)
	}
	if status, body, _ := call(p.httpsClient(false), http.MethodGet, base+"/subjects", token, ""); status != http.StatusOK || !strings.Contains(body, "orders-value") {
		t.Errorf("token without certificate: %d %s", status, body)
	}
	if _, _, err := call(&http.Client{Timeout: 5 * time.Second}, http.MethodGet, base+"/subjects", token, ""); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the CA: %v; want a certificate error", err)
	}
}

// TestMutualTLSWithoutAuthFile: --tls-client-ca alone requires a client
// certificate from everyone, and its name is the audit actor.
func TestMutualTLSWithoutAuthFile(t *testing.T) {
	dir := t.TempDir()
	p := newPKI(t, dir, "svc-billing")
	addr, err := start(t, serve.Config{Listen: "0.0.0.0:0", Security: serve.Security{TLSCert: p.certFile, TLSKey: p.keyFile, TLSClientCA: p.caFile}})
	if err != nil {
		t.Fatalf("mTLS on 0.0.0.0 without an auth file: %v", err)
	}
	_, port, _ := net.SplitHostPort(addr)
	base := "https://127.0.0.1:" + port
	if _, _, err := call(p.httpsClient(false), http.MethodGet, base+"/subjects", "", ""); err == nil {
		t.Error("a client without a certificate was served")
	}
	if status, body, err := call(p.httpsClient(true), http.MethodPost, base+"/subjects/bills-value/versions", "", schemaBody); err != nil || status != http.StatusOK {
		t.Fatalf("register with a certificate: %d %s %v", status, body, err)
	}
	if got := auditActors(t, p.httpsClient(true), base, "", "bills-value"); len(got) != 1 || got[0] != "svc-billing" {
		t.Errorf("audit actors %v, want [svc-billing] (the certificate, not X-Charter-Actor)", got)
	}
}

// TestAuthFileReloadsOnHangup: SIGHUP re-reads the auth file: a new token
// works and the removed one is refused, without a restart.
func TestAuthFileReloadsOnHangup(t *testing.T) {
	dir := t.TempDir()
	old, oldDigest, _ := auth.NewToken()
	fresh, freshDigest, _ := auth.NewToken()
	authFile := filepath.Join(dir, "auth.yaml")
	write := func(digest string) {
		if err := os.WriteFile(authFile, []byte(fmt.Sprintf("principals:\n  - name: alice\n    tokens_sha256: [%s]\n", digest)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(oldDigest)
	addr, err := start(t, serve.Config{Listen: "127.0.0.1:0", Security: serve.Security{AuthConfig: authFile}})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	base := "http://" + addr
	if status, _, _ := call(c, http.MethodGet, base+"/subjects", old, ""); status != http.StatusOK {
		t.Fatalf("old token before the reload: %d", status)
	}
	write(freshDigest)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _, _ := call(c, http.MethodGet, base+"/subjects", fresh, "")
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new token still gets %d 5 s after SIGHUP", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, _, _ := call(c, http.MethodGet, base+"/subjects", old, ""); status != http.StatusUnauthorized {
		t.Errorf("old token after the reload: %d, want 401", status)
	}
}
