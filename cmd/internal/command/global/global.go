// Package global holds what every charter command shares: the root's
// persistent flags --registry, --token and --output (-o), their
// environment variables, and the registry client built from them.
//
// A flag beats its environment variable; for the registry URL, both beat
// the registry named in the nearest charter.yaml, which beats
// DefaultRegistry (the address `charter serve` listens on by default).
package global

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// Flag names and environment variables.
const (
	FlagRegistry = "registry"
	FlagToken    = "token"
	FlagOutput   = "output"
	FlagActor    = "actor"

	EnvRegistryURL = "CHARTER_REGISTRY_URL"
	EnvToken       = "CHARTER_TOKEN"
	// EnvActor sets --actor when the flag is not given.
	EnvActor = "CHARTER_ACTOR"
)

const actorUsage = "who makes the change, recorded in the audit log (default $" + EnvActor + ", then $USER)"

// DefaultRegistry is the registry URL registry commands use when no flag,
// environment variable or charter.yaml names one.
const DefaultRegistry = "http://127.0.0.1:8081"

// Timeout bounds each request to the registry.
const Timeout = 60 * time.Second

// AddFlags registers the global flags on fs (the root's persistent flags).
func AddFlags(fs *pflag.FlagSet) {
	fs.String(FlagRegistry, "", "registry URL (default $"+EnvRegistryURL+", then charter.yaml's registry, then "+DefaultRegistry+")")
	fs.String(FlagToken, "", "bearer token sent to the registry (default $"+EnvToken+")")
	fs.StringP(FlagOutput, "o", "text", "output format: text or json (check, diff and rules also take github, markdown and sarif)")
}

// flag returns the value of a global flag on cmd and whether it was
// given; "" when cmd was built without the root (tests of one command).
func flag(cmd *cobra.Command, name string) (string, bool) {
	f := cmd.Flags().Lookup(name)
	if f == nil {
		return "", false
	}
	return f.Value.String(), f.Changed
}

// RegistryFlag returns the registry URL the flag or the environment gives,
// "" when neither does.
func RegistryFlag(cmd *cobra.Command) string {
	if v, set := flag(cmd, FlagRegistry); set && v != "" {
		return v
	}
	return os.Getenv(EnvRegistryURL)
}

// RegistryURL returns the registry to talk to: --registry,
// $CHARTER_REGISTRY_URL, the registry of the charter.yaml found from the
// working directory upwards, else DefaultRegistry.
func RegistryURL(cmd *cobra.Command) string {
	if u := RegistryFlag(cmd); u != "" {
		return u
	}
	if p, err := project.Find("."); err == nil && p.Config.Registry != "" {
		return p.Config.Registry
	}
	return DefaultRegistry
}

// Token returns --token, else $CHARTER_TOKEN.
func Token(cmd *cobra.Command) string {
	if v, set := flag(cmd, FlagToken); set && v != "" {
		return v
	}
	return os.Getenv(EnvToken)
}

// AddActorFlag adds --actor to a command that changes the registry, so
// that the audit log names who made the change (see Actor).
func AddActorFlag(cmd *cobra.Command) {
	cmd.Flags().String(FlagActor, "", actorUsage)
}

// Actor returns who acts, sent to the registry in the X-Charter-Actor
// header: --actor when cmd has it and it is given, else $CHARTER_ACTOR,
// else $USER ("" when all are empty: the registry records anonymous).
func Actor(cmd *cobra.Command) string {
	if v, _ := flag(cmd, FlagActor); strings.TrimSpace(v) != "" {
		return v
	}
	if v := os.Getenv(EnvActor); v != "" {
		return v
	}
	return os.Getenv("USER")
}

// NewClient returns a client of url with the global token, who acts
// (Actor) and Charter's user agent.
func NewClient(cmd *cobra.Command, url string) (*client.Client, error) {
	version, _ := buildinfo.Get()
	opts := []client.Option{
		client.WithUserAgent("charter/" + version),
		client.WithHTTPClient(&http.Client{Timeout: Timeout}),
		client.WithActor(Actor(cmd)),
	}
	if t := Token(cmd); t != "" {
		opts = append(opts, client.WithBearerToken(t))
	}
	c, err := client.New(url, opts...)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Client returns a client of RegistryURL.
func Client(cmd *cobra.Command) (*client.Client, error) {
	return NewClient(cmd, RegistryURL(cmd))
}

// Output returns the --output format, lower-cased, after checking that it
// is one of allowed.
func Output(cmd *cobra.Command, allowed ...string) (string, error) {
	v, _ := flag(cmd, FlagOutput)
	if v == "" {
		v = "text"
	}
	v = strings.ToLower(strings.TrimSpace(v))
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("invalid --output %q: want %s", v, strings.Join(allowed, " or "))
}

// Format returns the output format of a command that has its own --format
// flag (check, diff, rules): --format when given, else --output when
// given, else local (the --format default). The error names the flag the
// value came from.
func Format(cmd *cobra.Command, local string) (render.Format, error) {
	v, name := local, "format"
	if f := cmd.Flags().Lookup("format"); f == nil || !f.Changed {
		if o, set := flag(cmd, FlagOutput); set {
			v, name = o, FlagOutput
		}
	}
	f, err := render.ParseFormat(v)
	if err != nil {
		return "", fmt.Errorf("invalid --%s %q: want one of %s", name, v, render.FormatNames())
	}
	return f, nil
}

// RegistryOutput returns the --output format of a registry command:
// render.Text or render.JSON.
func RegistryOutput(cmd *cobra.Command) (render.Format, error) {
	f, err := Output(cmd, render.RegistryFormats...)
	return render.Format(f), err
}
