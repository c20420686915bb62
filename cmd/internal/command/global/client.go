package global

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// Target is the registry a command talks to, for Connect. The zero value
// is the registry of the global flags (RegistryURL), acting as Actor.
type Target struct {
	// URL is the registry; "" is RegistryURL(cmd). Either is reached
	// under the schema context of --context (see Connect).
	URL string
	// Context is the schema context after --context and
	// $CHARTER_CONTEXT: that of the charter.yaml the command works with
	// (ContextFrom names it, "context: in PATH"); "" is that of the
	// charter.yaml found from the working directory.
	Context, ContextFrom string
	// Actor is sent in X-Charter-Actor; "" is Actor(cmd).
	Actor string
	// HTTPClient replaces the default client (Timeout, and the CA file
	// of --ca-file for https); tests inject one. Credentials and headers
	// are sent through it all the same.
	HTTPClient *http.Client
	// Transport, when set, wraps the transport of the client's requests
	// (progress of a long transfer: progress.Download, progress.Upload).
	Transport func(http.RoundTripper) http.RoundTripper
}

// Connect returns the client of t. It is how every command builds its
// registry client, so that none forgets the credentials: the bearer token
// (--token, $CHARTER_TOKEN) or the HTTP basic user (--user,
// $CHARTER_USER) with $CHARTER_PASSWORD, the CA file (--ca-file,
// $CHARTER_CA_FILE) trusted besides the system's, the request timeout
// (--timeout, $CHARTER_TIMEOUT; see RequestTimeout), Charter's
// User-Agent and who acts. The registry, t.URL's as the global flags',
// is reached under the schema context of --context ($CHARTER_CONTEXT):
// its URL gets /contexts/{ctx} appended (see Context), so that no command
// (check's --against registry:URL, charter.yaml's registry) talks to
// another context than the one named. Under a context from WithTrail it
// records the registry and the credentials, for Explain.
func Connect(cmd *cobra.Command, t Target) (*client.Client, error) {
	url := t.URL
	if url == "" {
		url = RegistryURL(cmd)
	}
	url, err := contextURL(cmd, url, t)
	if err != nil {
		return nil, err
	}
	opts, d, err := clientOptions(cmd, t)
	if err != nil {
		return nil, err
	}
	c, err := client.New(url, opts...)
	if err != nil {
		return nil, err
	}
	d.url = c.URL()
	warnPlainCredentials(cmd, d)
	if tr, ok := cmd.Context().Value(trailKey{}).(*trail); ok {
		tr.mu.Lock()
		tr.last = d
		tr.mu.Unlock()
	}
	return c, nil
}

// warnPlainCredentials warns on stderr when credentials would cross a
// network in clear text: an http:// registry that is not on loopback.
func warnPlainCredentials(cmd *cobra.Command, d dialled) {
	if d.cred.Token == "" && d.cred.User == "" {
		return
	}
	u, err := neturl.Parse(d.url)
	if err != nil || u.Scheme != "http" {
		return
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return
	}
	what := "the bearer token"
	if d.cred.Token == "" {
		what = "the password of " + d.cred.User
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "charter: warning: sending %s over plain http to %s, readable by anyone on the way; use an https:// registry URL\n", what, host)
}

// clientOptions builds the options of every registry client (see
// Connect) and what Explain needs to know of them.
func clientOptions(cmd *cobra.Command, t Target) ([]client.Option, dialled, error) {
	var d dialled
	cred, err := credentials(cmd)
	if err != nil {
		return nil, d, err
	}
	d.cred = cred
	hc := t.HTTPClient
	if hc == nil {
		if hc, d.caFile, err = httpClient(cmd); err != nil {
			return nil, d, err
		}
	}
	if t.Transport != nil {
		wrapped := *hc
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		wrapped.Transport = t.Transport(next)
		hc = &wrapped
	}
	actor := t.Actor
	if actor == "" {
		actor = Actor(cmd)
	}
	version, _ := buildinfo.Get()
	opts := []client.Option{
		client.WithHTTPClient(hc),
		client.WithUserAgent("charter/" + version + " (" + strings.TrimPrefix(cmd.CommandPath(), "charter ") + ")"),
		client.WithActor(actor),
	}
	switch {
	case cred.Token != "":
		opts = append(opts, client.WithBearerToken(cred.Token))
	case cred.User != "":
		opts = append(opts, client.WithBasicAuth(cred.User, cred.Password))
	}
	return opts, d, nil
}

// Credentials are what the CLI proves who it is with: a bearer token, or
// an HTTP basic user and password; all empty for none.
type Credentials struct {
	Token          string
	User, Password string
	// From names the flag or environment variable the token or user came
	// from, for messages.
	From string
}

// credentials reads the global --token and --user and their environment
// variables. The two kinds exclude each other; a flag beats the other
// kind's variable (--user with $CHARTER_TOKEN set sends the user).
func credentials(cmd *cobra.Command) (Credentials, error) {
	token, _ := flag(cmd, FlagToken)
	user, _ := flag(cmd, FlagUser)
	token, user = strings.TrimSpace(token), strings.TrimSpace(user)
	tokenFrom, userFrom := "--"+FlagToken, "--"+FlagUser
	switch {
	case token != "" && user != "":
		return Credentials{}, fmt.Errorf("both --%s and --%s are given: the registry takes one credential, a bearer token or a user and password", FlagToken, FlagUser)
	case token == "" && user == "":
		token, user = strings.TrimSpace(os.Getenv(EnvToken)), strings.TrimSpace(os.Getenv(EnvUser))
		tokenFrom, userFrom = EnvToken, EnvUser
		if token != "" && user != "" {
			return Credentials{}, fmt.Errorf("both %s and %s are set: the registry takes one credential; unset one, or choose with --%s or --%s", EnvToken, EnvUser, FlagToken, FlagUser)
		}
	}
	switch {
	case token != "":
		return Credentials{Token: token, From: tokenFrom}, nil
	case user != "":
		pass := os.Getenv(EnvPassword)
		if pass == "" {
			return Credentials{}, fmt.Errorf("%s %s needs its password in %s (there is no password flag: it would stay in the shell history)", userFrom, user, EnvPassword)
		}
		return Credentials{User: user, Password: pass, From: userFrom}, nil
	}
	return Credentials{}, nil
}

// httpClient returns the http.Client of registry requests: RequestTimeout, and
// for https the system's CAs plus those of --ca-file ($CHARTER_CA_FILE).
// caFile names the file and where it came from ("" without one).
func httpClient(cmd *cobra.Command) (hc *http.Client, caFile string, err error) {
	timeout, err := RequestTimeout(cmd)
	if err != nil {
		return nil, "", err
	}
	path, from := caFilePath(cmd)
	if path == "" {
		return &http.Client{Timeout: timeout}, "", nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", from, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, "", fmt.Errorf("%s %s holds no PEM certificate", from, path)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Timeout: timeout, Transport: tr}, from + " " + path, nil
}

// caFilePath is --ca-file, else $CHARTER_CA_FILE, and which it was.
func caFilePath(cmd *cobra.Command) (path, from string) {
	if v, _ := flag(cmd, FlagCAFile); v != "" {
		return v, "--" + FlagCAFile
	}
	return os.Getenv(EnvCAFile), EnvCAFile
}

// dialled is the registry a command built its client for.
type dialled struct {
	url    string
	cred   Credentials
	caFile string
}

type trailKey struct{}

// trail holds the last registry Connect built a client for.
type trail struct {
	mu   sync.Mutex
	last dialled
}

// WithTrail returns ctx under which Connect records the registry and
// credentials of each client, so that Explain can name them.
func WithTrail(ctx context.Context) context.Context {
	return context.WithValue(ctx, trailKey{}, &trail{})
}

// Explain returns the one line the CLI prints for a refusal of the
// registry's (401 with a hint naming the credential flags, 403 with the
// registry's reason) or a certificate it could not verify, naming the
// registry the command last connected to under ctx (see WithTrail). ok
// is false for any other error.
func Explain(ctx context.Context, err error) (line string, ok bool) {
	var d dialled
	if tr, ok := ctx.Value(trailKey{}).(*trail); ok {
		tr.mu.Lock()
		d = tr.last
		tr.mu.Unlock()
	}
	where := "registry"
	if d.url != "" {
		where += " " + d.url
	}
	if status, msg, ok := refusal(err); ok {
		line = fmt.Sprintf("%s: %d %s", where, status, msg)
		if status == http.StatusUnauthorized {
			line += " (" + d.cred.hint() + ")"
		}
		return line, true
	}
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		var unknown x509.UnknownAuthorityError
		var host x509.HostnameError
		hint := ""
		switch {
		case errors.As(err, &unknown) && d.caFile != "":
			hint = " (no CA in " + d.caFile + " or the system's signed it)"
		case errors.As(err, &unknown):
			hint = fmt.Sprintf(" (give the CA that signed it with --%s or %s)", FlagCAFile, EnvCAFile)
		case errors.As(err, &host):
			hint = fmt.Sprintf(" (give --%s with a host name the certificate holds)", FlagRegistry)
		}
		return fmt.Sprintf("%s: TLS certificate not trusted: %v%s", where, oneLine(cve.Err.Error()), hint), true
	}
	return "", false
}

// refusal returns the status and message of a 401 or 403 answer: a
// Confluent error body (Charter's 40101 and 40301, Confluent's 401 and
// 403), else the bare status (a proxy's page).
func refusal(err error) (status int, msg string, ok bool) {
	var api *srerr.APIError
	var se *client.StatusError
	switch {
	case errors.As(err, &api):
		status, msg = api.Err.Status, api.Error()
	case errors.As(err, &se):
		status = se.Status
		if !strings.HasPrefix(se.Body, "<") {
			msg = se.Body
		}
	default:
		return 0, "", false
	}
	if status != http.StatusUnauthorized && status != http.StatusForbidden {
		return 0, "", false
	}
	msg, text := oneLine(msg), http.StatusText(status)
	switch {
	case msg == "":
		msg = text
	case !strings.HasPrefix(msg, text):
		msg = text + ": " + msg
	}
	return status, msg, true
}

// hint says how to give credentials the registry accepts, naming those
// that were sent.
func (c Credentials) hint() string {
	switch {
	case c.Token != "" && strings.HasPrefix(c.From, "--"):
		return "check the token given by " + c.From
	case c.Token != "":
		return "check the token in " + c.From
	case c.User != "":
		return fmt.Sprintf("check %s %s and %s", c.From, c.User, EnvPassword)
	}
	return fmt.Sprintf("give --%s or %s, or --%s or %s with %s", FlagToken, EnvToken, FlagUser, EnvUser, EnvPassword)
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
