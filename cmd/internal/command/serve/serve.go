// Package serve is the `charter serve` command: it runs the schema
// registry's REST API over the embedded SQLite store until SIGINT or
// SIGTERM, then drains open requests and closes the store.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/web"
)

// Defaults and environment variables of `charter serve`. A flag on the
// command line beats its environment variable, which beats the --config
// file (configfile.go), which beats the default.
const (
	DefaultListen = "127.0.0.1:8081"
	DefaultDB     = "./charter.db"
	EnvListen     = "CHARTER_LISTEN"
	EnvDB         = "CHARTER_DB"
	// ShutdownTimeout is how long open requests may take to finish after
	// SIGINT/SIGTERM.
	ShutdownTimeout = 15 * time.Second
	// DefaultReadHeaderTimeout bounds reading a request's headers,
	// DefaultReadTimeout reading the whole request (headers and body), so
	// that a client that stops sending cannot hold a connection;
	// DefaultIdleTimeout is how long a keep-alive connection may wait for
	// its next request.
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

// Config is what `charter serve` runs with.
type Config struct {
	Listen       string // host:port
	DB           string // SQLite file path or postgres:// URL
	LogLevel     string // debug, info, warn, error
	LogFormat    string // text or json
	MaxBodyBytes int64  // request body limit in bytes, > 0
	MaxSchema    int    // schema text limit in bytes, > 0
	// ParsedCacheBytes is the estimated byte budget of parsed schemas
	// kept in memory (registry.WithParsedCacheBytes; negative: none).
	ParsedCacheBytes int
	// RejectEmptySubject and ReferenceVersionsStrict are Confluent's
	// schema.reject.empty.subject and
	// schema.providers.reference.versions.strict
	// (registry.WithRejectEmptySubject, WithReferenceVersionsStrict).
	RejectEmptySubject      bool
	ReferenceVersionsStrict bool
	// SecretsKeyFile holds the secret that seals exporters' credentials
	// at rest ("": none, and exporter credentials are refused).
	SecretsKeyFile string
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout are the HTTP
	// server's (net/http.Server); zero takes the Default… value.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	// Security is authentication and TLS.
	Security
	// Database is the database's settings beyond DB (database.go).
	Database
	// UI serves the web UI under /ui/ (package web); `GET /` from a
	// browser redirects there.
	UI bool
	// Operations are CORS and metrics (operations.go).
	Operations
}

// Validate reports the first setting that cannot work, naming its flag:
// limits and timeouts must be positive (there is no "unlimited").
func (c Config) Validate() error {
	if err := c.Database.validate(); err != nil {
		return err
	}
	switch {
	case c.MaxBodyBytes <= 0:
		return fmt.Errorf("invalid --max-body-bytes %d: want a positive number of bytes", c.MaxBodyBytes)
	case c.MaxSchema <= 0:
		return fmt.Errorf("invalid --max-schema-bytes %d: want a positive number of bytes", c.MaxSchema)
	}
	if err := cacheBudget("--parsed-cache-bytes", c.ParsedCacheBytes); err != nil {
		return err
	}
	if err := c.Security.validate(); err != nil {
		return err
	}
	if err := c.Operations.validate(); err != nil {
		return err
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--read-header-timeout", c.ReadHeaderTimeout}, {"--read-timeout", c.ReadTimeout}, {"--idle-timeout", c.IdleTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("invalid %s %s: want a positive duration such as 30s", d.flag, d.v)
		}
	}
	return nil
}

// Deps are the command's connections to the outside world.
type Deps struct {
	// Stderr receives the logs (default os.Stderr).
	Stderr io.Writer
	// Ready, when set, is called with the listening address once the
	// server accepts connections (tests listen on port 0).
	Ready func(addr string)
}

// NewCommand returns the serve command.
func NewCommand(name string, deps Deps) *cobra.Command {
	var cfg Config
	var cfgFile string
	cmd := &cobra.Command{
		Use:   name,
		Short: "Run the schema registry (Confluent-compatible REST API)",
		Long: `Run the schema registry: a Confluent Schema Registry compatible REST API
over an embedded SQLite database, or over PostgreSQL when --db is a
postgres:// URL: any number of replicas may then share the database, behind
a load balancer (--db-* flags tune the pool, timeouts, retries and the
bound on cache staleness). Migrations are applied at start-up (replicas
starting together wait for each other); --migrate-only applies them and
exits. Stops cleanly on SIGINT or SIGTERM.

--config FILE gives any of these flags in a YAML file, keyed by the flag's
name without dashes (listen: ":8081", db-pool-size: 20, cors-origin: [a, b]);
unknown keys are errors. A setting on the command line beats its environment
variable (` + EnvListen + `, ` + EnvDB + `, ` + EnvAuthConfig + `), which beats the file,
which beats the default.`,
		Example: `  # A registry on 127.0.0.1:8081 with its data in ./charter.db
  charter serve

  # Listen on every interface, data on a volume, JSON logs
  charter serve --listen :8081 --db /var/lib/charter/charter.db --log-format json

  # The same, configured by the environment (containers)
  CHARTER_LISTEN=:8081 CHARTER_DB=/data/charter.db charter serve

  # A replica on PostgreSQL (run as many as you like on one database)
  charter serve --listen :8081 --db 'postgres://charter:secret@db:5432/charter?sslmode=require'

  # Deploy pipelines: migrate once, then roll the replicas
  charter serve --migrate-only --db "$CHARTER_DB"`,
		Args: cobra.NoArgs,
		// The root's client flags and --output mean nothing to the
		// server: its help leaves them out.
		Annotations: map[string]string{global.AnnotationNoGlobalFlags: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			given, err := applyConfigFile(cmd.LocalFlags(), cfgFile)
			if err != nil {
				return err
			}
			if !given["listen"] {
				if v := os.Getenv(EnvListen); v != "" {
					cfg.Listen = v
				}
			}
			// The root's client flags mean nothing to the server: refuse
			// them rather than let a user believe they secure it (or,
			// for --registry, that the server talks to another).
			if err := refuseClientFlags(cmd); err != nil {
				return err
			}
			if !given["auth-config"] {
				if v := os.Getenv(EnvAuthConfig); v != "" {
					cfg.AuthConfig = v
				}
			}
			if !given["db"] {
				if v := os.Getenv(EnvDB); v != "" {
					cfg.DB = v
				}
			}
			stderr := deps.Stderr
			if stderr == nil {
				stderr = cmd.ErrOrStderr()
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			log, err := NewLogger(stderr, cfg.LogLevel, cfg.LogFormat)
			if err != nil {
				return err
			}
			return Run(cmd.Context(), cfg, log, deps.Ready)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Listen, "listen", DefaultListen, "address to listen on, host:port (env "+EnvListen+")")
	f.StringVar(&cfg.DB, "db", DefaultDB, "SQLite database file, created if missing, or a postgres:// URL (env "+EnvDB+")")
	addDatabaseFlags(f, &cfg.Database)
	f.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	global.Enum(cmd, "log-level", "debug", "info", "warn", "error")
	global.Enum(cmd, "log-format", "text", "json")
	f.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", api.DefaultMaxBodyBytes, "largest request body accepted, in bytes (> 0; larger bodies get 413)")
	f.IntVar(&cfg.MaxSchema, "max-schema-bytes", registry.DefaultMaxSchemaSize, "largest schema text accepted, in bytes (> 0; larger schemas get 42209)")
	f.BoolVar(&cfg.RejectEmptySubject, "reject-empty-subject", false, "refuse to register under \"*\" or a subject that is only a context prefix such as \":.:\" (42208), as Confluent's schema.reject.empty.subject")
	f.BoolVar(&cfg.ReferenceVersionsStrict, "reference-versions-strict", false, "refuse a schema whose references, followed transitively, name one reference at two versions (42201), as Confluent's schema.providers.reference.versions.strict")
	f.StringVar(&cfg.SecretsKeyFile, "secrets-key-file", "", "file of at least 32 secret bytes (e.g. openssl rand -base64 32) that encrypts exporters' destination credentials in the store, the same on every replica; without it an exporter config with a credential is refused")
	f.IntVar(&cfg.ParsedCacheBytes, "parsed-cache-bytes", registry.DefaultParsedCacheBytes, "estimated byte budget of parsed schemas kept in memory for compatibility checks, least recently used evicted first; -1 keeps none")
	f.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", DefaultReadHeaderTimeout, "time a client has to send a request's headers")
	f.DurationVar(&cfg.ReadTimeout, "read-timeout", DefaultReadTimeout, "time a client has to send a whole request, body included")
	f.DurationVar(&cfg.IdleTimeout, "idle-timeout", DefaultIdleTimeout, "time an idle keep-alive connection stays open")
	f.StringVar(&cfg.AuthConfig, "auth-config", "", "auth file (YAML: principals, teams, tokens, passwords, OIDC); without it only a loopback address is served (env "+EnvAuthConfig+")")
	f.BoolVar(&cfg.InsecureNoAuth, "insecure-no-auth", false, "serve a non-loopback address without authentication (anyone who reaches it may change anything)")
	f.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key, serve HTTPS")
	f.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	f.BoolVar(&cfg.UI, "ui", true, "serve the web UI under /ui/ (--ui=false: the API only)")
	f.StringVar(&cfg.TLSClientCA, "tls-client-ca", "", "CA bundle (PEM) for client certificates (mTLS): a certificate's CN or first SAN names the principal")
	addOperationsFlags(f, &cfg.Operations)
	f.StringVar(&cfgFile, ConfigFlag, "", "YAML file of flag values, keyed by flag name (listen: \":8081\"); the command line and environment variables beat it")
	return cmd
}

// NewLogger returns a slog logger writing text or JSON lines to w at
// level. Unknown levels or formats are errors naming the accepted values.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: want text or json", format)
}

// ClientFlags are the root's global flags, each with what serve has
// instead: every one of them is refused on serve (the test walks the
// root's persistent flags against this list).
var ClientFlags = []struct{ Name, Instead string }{
	{"registry", "serve is the registry: --listen is the address it serves on, --db its database"},
	{"token", "the server's tokens live in the --auth-config file (see `charter auth token`)"},
	{"user", "the server's users and passwords live in the --auth-config file (see `charter auth hash-password`)"},
	{"ca-file", "the server's certificate is --tls-cert/--tls-key, and client certificates are checked against --tls-client-ca"},
	{"timeout", "the server's own are --read-header-timeout, --read-timeout and --idle-timeout"},
	{"output", "the server prints logs, not answers: --log-format json makes them JSON"},
	{"context", "the server serves every schema context: clients name theirs (/contexts/{ctx}/... or :.ctx:subject)"},
}

// refuseClientFlags returns the error for the first of ClientFlags given
// to cmd, in their order.
func refuseClientFlags(cmd *cobra.Command) error {
	for _, c := range ClientFlags {
		if f := cmd.Flags().Lookup(c.Name); f != nil && f.Changed {
			return fmt.Errorf("--%s is for commands that call a registry; %s", c.Name, c.Instead)
		}
	}
	return nil
}

// Run opens the store at cfg.DB, serves the API on cfg.Listen until ctx
// ends, then shuts down gracefully (open requests get ShutdownTimeout)
// and closes the store. ready, when not nil, receives the bound address.
func Run(ctx context.Context, cfg Config, log *slog.Logger, ready func(addr string)) error {
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("close store", "error", err.Error())
		}
	}()
	if cfg.MigrateOnly {
		log.Info("database migrated", "db", displayDB(cfg.DB))
		return nil
	}
	tlsCfg, reloadCert, err := cfg.tlsConfig()
	if err != nil {
		return err
	}
	authn, err := cfg.openAuth(ctx)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, unwrapSyscall(err))
	}
	if err := cfg.checkExposure(ln); err != nil {
		ln.Close()
		return err
	}
	reloads := map[string]func() error{}
	if authn != nil {
		reloads["auth config"] = func() error { return authn.Reload(ctx) }
	}
	if reloadCert != nil {
		reloads["TLS certificate"] = reloadCert
	}
	reloadOnHangup(ctx, log, reloads)
	scheme := "http"
	if tlsCfg != nil {
		ln, scheme = tls.NewListener(ln, tlsCfg), "https"
	}
	version, commit := buildinfo.Get()
	sealer, err := cfg.exporterSealer()
	if err != nil {
		return err
	}
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(log), registry.WithMaxSchemaSize(cfg.MaxSchema), registry.WithParsedCacheBytes(cfg.ParsedCacheBytes),
		registry.WithRejectEmptySubject(cfg.RejectEmptySubject), registry.WithReferenceVersionsStrict(cfg.ReferenceVersionsStrict),
		registry.WithExporterSealer(sealer))
	apiOpts := api.Options{
		Logger:       log,
		MaxBodyBytes: cfg.MaxBodyBytes,
		Version:      version,
		Commit:       commit,
		Auth:         authn,
		LoopbackOnly: authn == nil && cfg.TLSClientCA == "" && !cfg.InsecureNoAuth,
	}
	cfg.Operations.apiOptions(&apiOpts)
	handler := api.New(svc, apiOpts)
	stopExporters := startExporters(ctx, cfg, svc, sealer, apiOpts.ClusterID, log)
	defer stopExporters()
	if cfg.UI {
		ui, err := web.New(svc, web.Options{Auth: authn, Logger: log})
		if err != nil {
			return err
		}
		handler = web.Mount(handler, ui)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: orDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       orDefault(cfg.ReadTimeout, DefaultReadTimeout),
		IdleTimeout:       orDefault(cfg.IdleTimeout, DefaultIdleTimeout),
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	addr := ln.Addr().String()
	log.Info("charter serving", "addr", scheme+"://"+addr, "db", displayDB(cfg.DB), "version", version, "auth", authn != nil, "ui", cfg.UI)
	if ready != nil {
		ready(addr)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve on %s: %w", addr, err)
	}
	log.Info("stopped")
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// checkDBPath explains the common mistakes with --db before SQLite gives
// its terse "unable to open database file".
func checkDBPath(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("open database %s: it is a directory; give a file path such as %s", path, filepath.Join(path, "charter.db"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("open database %s: directory %s does not exist", path, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("open database %s: %s is not a directory", path, dir)
	}
	return nil
}

// unwrapSyscall shortens "listen tcp …: bind: address already in use" to
// the part a person needs.
func unwrapSyscall(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		var sys *os.SyscallError
		if errors.As(op.Err, &sys) {
			return sys.Err
		}
		return op.Err
	}
	return err
}
