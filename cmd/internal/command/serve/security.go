package serve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/charter-dev/charter/registry/auth"
)

// Security is how `charter serve` authenticates: the auth file, TLS, and
// the explicit opt-out of authentication off loopback.
type Security struct {
	// AuthConfig is the auth file (--auth-config, env CHARTER_AUTH_CONFIG);
	// "" leaves every endpoint open, which only a loopback address (or
	// InsecureNoAuth) allows.
	AuthConfig string
	// InsecureNoAuth allows a non-loopback address without AuthConfig.
	InsecureNoAuth bool
	// TLSCert and TLSKey are PEM files; both or neither. TLSClientCA, a
	// PEM bundle, turns on client certificates: with AuthConfig a verified
	// certificate's CN (or first SAN) names a principal, and other
	// credentials still work; without it every client must present one.
	TLSCert, TLSKey, TLSClientCA string
}

// EnvAuthConfig sets --auth-config when the flag is not given.
const EnvAuthConfig = "CHARTER_AUTH_CONFIG"

func (s Security) validate() error {
	switch {
	case (s.TLSCert == "") != (s.TLSKey == ""):
		return errors.New("give both --tls-cert and --tls-key, or neither")
	case s.TLSClientCA != "" && s.TLSCert == "":
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key: client certificates need TLS")
	}
	return nil
}

// checkExposure refuses to serve an open registry on a non-loopback
// address: anyone who reaches it could change or delete anything.
func (s Security) checkExposure(ln net.Listener) error {
	if s.AuthConfig != "" || s.TLSClientCA != "" || s.InsecureNoAuth {
		return nil
	}
	if ap, ok := ln.Addr().(*net.TCPAddr); ok && ap.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("refusing to serve on %s without authentication: it is not a loopback address, so anyone who reaches it could change or delete every schema; give --auth-config FILE (see `charter auth token`), or --insecure-no-auth to accept that", ln.Addr())
}

// openAuth loads the auth file; nil without one.
func (s Security) openAuth(ctx context.Context) (*auth.Authenticator, error) {
	if s.AuthConfig == "" {
		return nil, nil
	}
	return auth.Open(ctx, s.AuthConfig, auth.Options{})
}

// certificate holds the server certificate, swapped on SIGHUP.
type certificate struct {
	cert, key string
	cur       atomic.Pointer[tls.Certificate]
}

func (c *certificate) load() error {
	kp, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		return fmt.Errorf("load --tls-cert %s and --tls-key %s: %w", c.cert, c.key, err)
	}
	c.cur.Store(&kp)
	return nil
}

// tlsConfig returns the server's TLS configuration (nil without
// TLSCert) and the function that reloads its certificate.
func (s Security) tlsConfig() (*tls.Config, func() error, error) {
	if s.TLSCert == "" {
		return nil, nil, nil
	}
	c := &certificate{cert: s.TLSCert, key: s.TLSKey}
	if err := c.load(); err != nil {
		return nil, nil, err
	}
	cfg := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return c.cur.Load(), nil },
	}
	if s.TLSClientCA != "" {
		pem, err := os.ReadFile(s.TLSClientCA)
		if err != nil {
			return nil, nil, fmt.Errorf("read --tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("--tls-client-ca %s holds no PEM certificate", s.TLSClientCA)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		if s.AuthConfig != "" {
			cfg.ClientAuth = tls.VerifyClientCertIfGiven
		}
	}
	return cfg, c.load, nil
}

// reloadOnHangup runs each reload on SIGHUP until ctx ends; a failed
// reload is logged and leaves the running configuration as it was.
func reloadOnHangup(ctx context.Context, log *slog.Logger, reloads map[string]func() error) {
	if len(reloads) == 0 {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				for what, reload := range reloads {
					if err := reload(); err != nil {
						log.Error("reload failed; the previous one stays in use", "what", what, "error", err.Error())
						continue
					}
					log.Info("reloaded", "what", what)
				}
			}
		}
	}()
}
