package clitest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// authSetup is a registry run by `charter serve --auth-config` with an
// auth file made by `charter auth`: alice (team logistics) has a token,
// bob (team billing) a password.
type authSetup struct {
	url, dir     string
	aliceToken   string
	bobPassword  string
	samples, avs string
	project      string // charter.yaml mapping customer.avsc
}

const customerAvsc = `{"type":"record","name":"Customer","namespace":"acme","fields":[{"name":"id","type":"string"}]}`

// startAuthRegistry turns authentication on as README says: write the
// file (with `charter auth token` and `charter auth hash-password`),
// start `charter serve --auth-config` with serveArgs added; scheme is the
// registry URL's.
func startAuthRegistry(t *testing.T, scheme string, serveArgs ...string) *authSetup {
	t.Helper()
	s := &authSetup{dir: t.TempDir(), bobPassword: "bob's s3cret"}
	r := clitest.Run(t, "auth", "token", "--principal", "alice", "-o", "json")
	var tok struct {
		Token        string `json:"token"`
		TokensSHA256 string `json:"tokens_sha256"`
	}
	if r.Code != cli.ExitOK || json.Unmarshal([]byte(r.Stdout), &tok) != nil {
		t.Fatalf("charter auth token: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	s.aliceToken = tok.Token
	r = clitest.RunStdin(t, s.bobPassword+"\n", "auth", "hash-password")
	if r.Code != cli.ExitOK {
		t.Fatalf("charter auth hash-password: exit %d: %s", r.Code, r.Stderr)
	}
	file := `admins: [root]
principals:
  - name: alice
    teams: [logistics]
    tokens_sha256: [` + tok.TokensSHA256 + `]
  - name: bob
    teams: [billing]
    ` + r.Stdout
	authFile := s.write(t, "auth.yaml", file)
	s.avs = s.write(t, "customer.avsc", customerAvsc)
	s.project = s.write(t, "charter.yaml", "version: 1\nschemas:\n  - files: \"*.avsc\"\n")
	s.samples = s.write(t, "samples.jsonl", `{"id":"c-1","version":1,"value":{"id":"c1"}}`+"\n")
	addr := clitest.Serve(t, append([]string{"--auth-config", authFile}, serveArgs...)...)
	s.url = scheme + "://" + addr
	return s
}

func (s *authSetup) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(s.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// authStep is one command against the registry and what it must print:
// stdout's first line (or all of it with wholeStdout), stderr exactly
// (with findings, any stderr without an error line: the registry's
// warnings on a registration).
type authStep struct {
	name        string
	env         map[string]string
	args        []string // after --registry URL
	code        int
	stdout      string
	wholeStdout bool
	stderr      string // URL replaces {url}
	findings    bool
}

func (s *authSetup) run(t *testing.T, steps []authStep) {
	t.Helper()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			for _, k := range []string{"CHARTER_TOKEN", "CHARTER_USER", "CHARTER_PASSWORD", "CHARTER_CA_FILE", "CHARTER_REGISTRY_URL"} {
				t.Setenv(k, "")
			}
			for k, v := range st.env {
				t.Setenv(k, v)
			}
			args := append([]string{"--registry", s.url}, st.args...)
			if st.args[0] == "upcast" { // its own --registry, after the sub-command
				args = append(st.args[:2:2], append([]string{"--registry", s.url}, st.args[2:]...)...)
			}
			r := clitest.Run(t, args...)
			got := r.Stdout
			if !st.wholeStdout {
				got, _, _ = strings.Cut(r.Stdout, "\n")
			}
			wantErr := strings.ReplaceAll(st.stderr, "{url}", s.url)
			if st.findings && !strings.Contains(r.Stderr, "charter: ") {
				wantErr = r.Stderr
			}
			if r.Code != st.code || got != st.stdout || r.Stderr != wantErr {
				t.Errorf("charter %s: exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s\nwhole stdout:\n%s",
					strings.Join(args, " "), r.Code, got, r.Stderr, st.code, st.stdout, wantErr, r.Stdout)
			}
		})
	}
}

// TestAuthCredentials: with authentication on, the CLI's token and basic
// credentials work for registry, governance and upcast commands, and each
// refusal (a wrong token or password, none, another team's subject, an
// admin's operation) is one line and exit 2.
func TestAuthCredentials(t *testing.T) {
	s := startAuthRegistry(t, "http")
	alice := map[string]string{"CHARTER_TOKEN": s.aliceToken}
	bob := map[string]string{"CHARTER_USER": "bob", "CHARTER_PASSWORD": s.bobPassword}
	upcast := []string{"upcast", "verify", "--subject", "shipments-value", "--samples", s.samples, "--no-progress"}
	unknownToken := "charter: registry {url}: 401 Unauthorized: the bearer token is not known"
	t.Setenv("CHARTER_ACTOR", "")
	s.run(t, []authStep{
		{name: "token registers (claims for logistics)", env: alice, args: []string{"register", "shipments-value", s.avs, "--actor", "mallory"},
			stdout: "shipments-value version 1, schema id 1", findings: true},
		{name: "basic registers (claims for billing)", env: bob, args: []string{"register", "invoices-value", s.avs},
			stdout: "invoices-value version 1, schema id 1", findings: true},
		{name: "--token reads", args: []string{"--token", s.aliceToken, "subjects"}, stdout: "invoices-value\nshipments-value\n", wholeStdout: true},
		{name: "--user reads", env: map[string]string{"CHARTER_PASSWORD": s.bobPassword}, args: []string{"--user", "bob", "versions", "shipments-value"},
			stdout: "1\n", wholeStdout: true},
		{name: "token gets", env: alice, args: []string{"get", "invoices-value", "1", "--schema-only"}, stdout: customerAvsc + "\n", wholeStdout: true},
		{name: "token reads the lineage graph", env: alice, args: []string{"lineage", "graph", "--format", "mermaid"}, stdout: "flowchart LR"},
		{name: "token upcast verify", env: alice, args: upcast, stdout: verified, wholeStdout: true},
		{name: "basic upcast verify", env: bob, args: upcast, stdout: verified, wholeStdout: true},
		{name: "wrong --token", args: []string{"--token", "charter_wrong", "subjects"}, code: cli.ExitError,
			stderr: unknownToken + " (check the token given by --token)\n"},
		{name: "wrong CHARTER_TOKEN, upcast", env: map[string]string{"CHARTER_TOKEN": "charter_wrong"}, args: upcast, code: cli.ExitError,
			stderr: unknownToken + " (check the token in CHARTER_TOKEN)\n"},
		{name: "wrong password", env: map[string]string{"CHARTER_USER": "bob", "CHARTER_PASSWORD": "guess"}, args: []string{"get", "invoices-value"},
			code: cli.ExitError, stderr: "charter: registry {url}: 401 Unauthorized: wrong user name or password (check CHARTER_USER bob and CHARTER_PASSWORD)\n"},
		{name: "no credentials", args: []string{"subjects"}, code: cli.ExitError,
			stderr: "charter: registry {url}: 401 Unauthorized: this endpoint needs credentials (a bearer token, or HTTP basic user and password) (give --token or CHARTER_TOKEN, or --user or CHARTER_USER with CHARTER_PASSWORD)\n"},
		{name: "no credentials, governance", args: []string{"owners", "shipments-value"}, code: cli.ExitError,
			stderr: "charter: registry {url}: 401 Unauthorized: this endpoint needs credentials (a bearer token, or HTTP basic user and password) (give --token or CHARTER_TOKEN, or --user or CHARTER_USER with CHARTER_PASSWORD)\n"},
		{name: "wrong token, check --against registry", env: map[string]string{"CHARTER_TOKEN": "charter_wrong"},
			args: []string{"check", "--config", s.project, "--against", "registry"}, code: cli.ExitError,
			stderr: unknownToken + " (check the token in CHARTER_TOKEN)\n"},
		{name: "basic gives logistics' subject to billing", env: bob, args: []string{"owners", "shipments-value", "--team", "billing"}, code: cli.ExitError,
			stderr: "charter: registry {url}: 403 Forbidden: subject 'shipments-value' is owned by team 'logistics'; principal 'bob' is not a member (teams: billing)\n"},
		{name: "basic writes logistics' subject", env: bob, args: []string{"register", "shipments-value", s.avs}, code: cli.ExitError,
			stderr: "charter: registry {url}: 403 Forbidden: subject 'shipments-value' is owned by team 'logistics'; principal 'bob' is not a member (teams: billing)\n"},
		{name: "token sets billing's level", env: alice, args: []string{"config", "set", "invoices-value", "--level", "NONE"}, code: cli.ExitError,
			stderr: "charter: registry {url}: 403 Forbidden: subject 'invoices-value' is owned by team 'billing'; principal 'alice' is not a member (teams: logistics)\n"},
		{name: "token sets the global level", env: alice, args: []string{"config", "set", "--level", "NONE"}, code: cli.ExitError,
			stderr: "charter: registry {url}: 403 Forbidden: PUT /config needs an admin; principal 'alice' is not one\n"},
		{name: "both --token and --user", env: map[string]string{"CHARTER_PASSWORD": s.bobPassword}, args: []string{"--token", s.aliceToken, "--user", "bob", "subjects"},
			code: cli.ExitError, stderr: "charter: both --token and --user are given: the registry takes one credential, a bearer token or a user and password\n"},
	})

	// The audit log names the authenticated principals, not --actor (each
	// registration claimed its subject for the principal's team).
	t.Setenv("CHARTER_TOKEN", s.aliceToken)
	var who []string
	for _, e := range auditAfter(t, s.url, 0) {
		who = append(who, e.Actor+" "+e.Action+" "+e.Subject)
	}
	want := []string{"alice owner.set shipments-value", "alice schema.register shipments-value",
		"bob owner.set invoices-value", "bob schema.register invoices-value"}
	if strings.Join(who, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(who, "\n"), strings.Join(want, "\n"))
	}
}

// verified is what `charter upcast verify` prints for the one sample.
const verified = `subject shipments-value → v1: 1 sample
  v1   ok         1 sample, 1 ok, 0 failed  [target]
1 sample: 1 ok, 0 failed
`

// TestAuthTLS: `charter serve --tls-cert --tls-key` with a CA made at run
// time: --ca-file (or CHARTER_CA_FILE) makes the CLI trust it; without
// it, or with another CA, or under a name the certificate does not hold,
// the TLS failure is one line with a hint.
func TestAuthTLS(t *testing.T) {
	dir := t.TempDir()
	ca, other := newCA(t, "Charter test CA"), newCA(t, "Other CA")
	caFile, otherFile := writePEM(t, dir, "ca.pem", ca.certPEM), writePEM(t, dir, "other.pem", other.certPEM)
	certPEM, keyPEM := ca.issue(t, "127.0.0.1")
	s := startAuthRegistry(t, "https", "--tls-cert", writePEM(t, dir, "cert.pem", certPEM), "--tls-key", writePEM(t, dir, "key.pem", keyPEM))
	port := s.url[strings.LastIndexByte(s.url, ':')+1:]
	alice := map[string]string{"CHARTER_TOKEN": s.aliceToken}
	aliceCA := map[string]string{"CHARTER_TOKEN": s.aliceToken, "CHARTER_CA_FILE": caFile}
	untrusted := "charter: registry {url}: TLS certificate not trusted: x509: certificate signed by unknown authority"
	s.run(t, []authStep{
		{name: "--ca-file", env: alice, args: []string{"--ca-file", caFile, "register", "shipments-value", s.avs},
			stdout: "shipments-value version 1, schema id 1", findings: true},
		{name: "CHARTER_CA_FILE", env: aliceCA, args: []string{"subjects"}, stdout: "shipments-value\n", wholeStdout: true},
		{name: "CHARTER_CA_FILE, upcast", env: aliceCA, args: []string{"upcast", "verify", "--subject", "shipments-value", "--samples", s.samples, "--no-progress"},
			stdout: verified, wholeStdout: true},
		{name: "--ca-file, wrong token", env: map[string]string{"CHARTER_TOKEN": "charter_wrong", "CHARTER_CA_FILE": caFile}, args: []string{"subjects"},
			code: cli.ExitError, stderr: "charter: registry {url}: 401 Unauthorized: the bearer token is not known (check the token in CHARTER_TOKEN)\n"},
		{name: "no CA file", env: alice, args: []string{"subjects"}, code: cli.ExitError,
			stderr: untrusted + " (give the CA that signed it with --ca-file or CHARTER_CA_FILE)\n"},
		{name: "no CA file, upcast", env: alice, args: []string{"upcast", "verify", "--subject", "shipments-value", "--samples", s.samples}, code: cli.ExitError,
			stderr: untrusted + " (give the CA that signed it with --ca-file or CHARTER_CA_FILE)\n"},
		{name: "another CA", env: alice, args: []string{"--ca-file", otherFile, "subjects"}, code: cli.ExitError,
			stderr: untrusted + " (no CA in --ca-file " + otherFile + " or the system's signed it)\n"},
		{name: "a name the certificate does not hold", env: aliceCA, args: []string{"--registry", "https://localhost:" + port, "subjects"}, code: cli.ExitError,
			stderr: "charter: registry https://localhost:" + port + ": TLS certificate not trusted: x509: certificate is not valid for any names, but wanted to match localhost (give --registry with a host name the certificate holds)\n"},
	})
}

// testCA is a certificate authority made for one test.
type testCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a server certificate for ip and its key, PEM.
func (ca *testCA) issue(t *testing.T, ip string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "charter test server"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP(ip)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: k})
}

func writePEM(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
