// Package global holds what every charter command shares: the root's
// persistent flags --registry, --token, --user, --ca-file and --output
// (-o), their environment variables, and the registry client built from
// them (Connect).
//
// A flag beats its environment variable; for the registry URL, both beat
// the registry named in the nearest charter.yaml, which beats
// DefaultRegistry (the address `charter serve` listens on by default).
package global

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// Flag names and environment variables.
const (
	FlagRegistry = "registry"
	FlagToken    = "token"
	FlagUser     = "user"
	FlagCAFile   = "ca-file"
	FlagOutput   = "output"
	FlagActor    = "actor"
	FlagTimeout  = "timeout"

	EnvRegistryURL = "CHARTER_REGISTRY_URL"
	EnvToken       = "CHARTER_TOKEN"
	EnvUser        = "CHARTER_USER"
	// EnvPassword is the password of --user: there is no flag for it, so
	// that it stays out of shell history and process lists.
	EnvPassword = "CHARTER_PASSWORD"
	EnvCAFile   = "CHARTER_CA_FILE"
	// EnvActor sets --actor when the flag is not given.
	EnvActor = "CHARTER_ACTOR"
	// EnvTimeout sets --timeout when the flag is not given: a duration
	// ("90s", "2m") or a number of seconds.
	EnvTimeout = "CHARTER_TIMEOUT"
)

// ActorUsage is the help of every --actor flag.
const ActorUsage = "who makes the change, recorded in the audit log of a registry without authentication (default $" + EnvActor +
	", then $USER); a registry with authentication ignores it and records the authenticated principal"

// DefaultRegistry is the registry URL registry commands use when no flag,
// environment variable or charter.yaml names one.
const DefaultRegistry = "http://127.0.0.1:8081"

// Timeout is the default bound of each request to the registry
// (--timeout, $CHARTER_TIMEOUT).
const Timeout = 60 * time.Second

// AddFlags registers the global flags on fs (the root's persistent flags).
func AddFlags(fs *pflag.FlagSet) {
	fs.String(FlagRegistry, "", "registry URL (default $"+EnvRegistryURL+", then charter.yaml's registry, then "+DefaultRegistry+")")
	fs.String(FlagToken, "", "bearer token sent to the registry (default $"+EnvToken+"; charter auth token makes one)")
	fs.String(FlagUser, "", "HTTP basic user sent to the registry (default $"+EnvUser+"); the password is read from $"+EnvPassword+" only, never a flag")
	fs.String(FlagCAFile, "", "PEM file of CAs trusted for an https registry, besides the system's (default $"+EnvCAFile+")")
	fs.StringP(FlagOutput, "o", "text", "output format: text or json (check and diff also take the other formats of their --format, rules markdown)")
	fs.String(FlagTimeout, "", "bound of each request to the registry, a `duration` such as 30s or 2m (default $"+EnvTimeout+", then 1m)")
	addContextFlag(fs)
}

// RequestTimeout returns the bound of each registry request: --timeout
// when given, else $CHARTER_TIMEOUT, each a duration or a number of
// seconds, else Timeout. It must be positive.
func RequestTimeout(cmd *cobra.Command) (time.Duration, error) {
	v, from := "", "--"+FlagTimeout
	if f := cmd.Flags().Lookup(FlagTimeout); f != nil && f.Changed {
		v = f.Value.String()
	} else {
		v, from = os.Getenv(EnvTimeout), EnvTimeout
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return Timeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		if n, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			d, err = time.Duration(n*float64(time.Second)), nil
		}
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid %s %q: want a positive duration such as 30s, or a number of seconds", from, v)
	}
	return d, nil
}

// Color decides whether the text format written to w is coloured, from a
// --color value: "always", "never", or "auto" (a terminal, unless
// $NO_COLOR is set or $TERM is dumb). check, diff and rules share it.
func Color(mode string, w io.Writer) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
			return false, nil
		}
		f, ok := w.(*os.File)
		return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())), nil
	}
	return false, fmt.Errorf("invalid --color %q: want auto, always or never", mode)
}

// ColorModes are the values of --color.
var ColorModes = []string{"auto", "always", "never"}

// AddColorFlag adds --color to cmd, for its text format, and returns where
// its value goes; read it with Color.
func AddColorFlag(cmd *cobra.Command) *string {
	p := new(string)
	cmd.Flags().StringVar(p, "color", "auto", "colour the text format: auto (a terminal without NO_COLOR), always or never")
	Enum(cmd, "color", ColorModes...)
	return p
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

// AddActorFlag adds --actor to a command that changes the registry, so
// that the audit log names who made the change (see Actor).
func AddActorFlag(cmd *cobra.Command) {
	cmd.Flags().String(FlagActor, "", ActorUsage)
}

// Actor returns who acts, sent to the registry in the X-Charter-Actor
// header: --actor when cmd has it and it is given, else $CHARTER_ACTOR,
// else $USER ("" when all are empty: the registry records anonymous). A
// registry with authentication ignores the header and records the
// authenticated principal; it is sent all the same, for those without.
func Actor(cmd *cobra.Command) string {
	if v, _ := flag(cmd, FlagActor); strings.TrimSpace(v) != "" {
		return v
	}
	if v := os.Getenv(EnvActor); v != "" {
		return v
	}
	return os.Getenv("USER")
}

// Client returns the client of RegistryURL (see Connect).
func Client(cmd *cobra.Command) (*client.Client, error) {
	return Connect(cmd, Target{})
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
	return "", fmt.Errorf("invalid %s %q: want %s", OutputFlagName, v, strings.Join(allowed, " or "))
}

// OutputFlagName is how errors name the global --output: users type -o
// as often as --output.
const OutputFlagName = "-o/--output"

// FormatFlagName returns how an error about cmd's output format names the
// flag the value came from: "--format" when cmd's own --format was given,
// else OutputFlagName.
func FormatFlagName(cmd *cobra.Command) string {
	if f := cmd.LocalFlags().Lookup("format"); f != nil && f.Changed {
		return "--format"
	}
	return OutputFlagName
}

// Format returns the output format of a command that has its own --format
// flag (check, diff, rules): --format when given, else --output when
// given, else local (the --format default). The error names the flag the
// value came from.
func Format(cmd *cobra.Command, local string) (render.Format, error) {
	v, name := local, "--format"
	if f := cmd.Flags().Lookup("format"); f == nil || !f.Changed {
		if o, set := flag(cmd, FlagOutput); set {
			v, name = o, OutputFlagName
		}
	}
	f, err := render.ParseFormat(v)
	if err != nil {
		return "", fmt.Errorf("invalid %s %q: want one of %s", name, v, render.FormatNames())
	}
	return f, nil
}

// RegistryOutput returns the --output format of a registry command:
// render.Text or render.JSON.
func RegistryOutput(cmd *cobra.Command) (render.Format, error) {
	f, err := Output(cmd, render.RegistryFormats...)
	return render.Format(f), err
}

// AnnotationNoGlobalFlags, set to "true" in a command's Annotations, says
// that none of the root's global flags (the registry client's and
// --output) applies to it (`charter serve`): its help and reference page
// leave them out.
const AnnotationNoGlobalFlags = "charter/no-global-flags"

// HideGlobalFlags hides the root's global flags from cmd's help when cmd
// is annotated with AnnotationNoGlobalFlags, and returns the function
// that shows them again (the flags are the root's, shared by every
// command).
func HideGlobalFlags(cmd *cobra.Command) (restore func()) {
	if cmd.Annotations[AnnotationNoGlobalFlags] != "true" {
		return func() {}
	}
	var hidden []*pflag.Flag
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			f.Hidden = true
			hidden = append(hidden, f)
		}
	})
	return func() {
		for _, f := range hidden {
			f.Hidden = false
		}
	}
}

// FormatOrOutput returns the output format of a command whose own
// --format takes only some of the plain formats (contracts verify, upcast
// verify and replay): --format when given, else the global --output,
// lower-cased, after checking that it is one of allowed. The error names
// the flag the value came from.
func FormatOrOutput(cmd *cobra.Command, allowed ...string) (string, error) {
	name := OutputFlagName
	v, _ := flag(cmd, FlagOutput)
	if f := cmd.LocalFlags().Lookup("format"); f != nil && f.Changed {
		v, name = f.Value.String(), "--format"
	}
	if v == "" {
		v = "text"
	}
	v = strings.ToLower(strings.TrimSpace(v))
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("invalid %s %q: want %s", name, v, strings.Join(allowed, " or "))
}

// EvidenceArgs is args, the positional arguments' check of a command
// with an --evidence[=N] flag, that first recognises the count given
// apart (--evidence 5): a bare --evidence (its optional value unset) and
// one argument more than args takes, a number, are refused as
// "--evidence takes its count as --evidence=5" rather than as a count of
// arguments.
func EvidenceArgs(args cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, pos []string) error {
		err := args(cmd, pos)
		f := cmd.Flags().Lookup("evidence")
		if err == nil || f == nil || !f.Changed || f.Value.String() != f.NoOptDefVal {
			return err
		}
		// The count a space put apart is the one extra argument: with
		// it left out, the arguments are right.
		for i, a := range pos {
			if _, nerr := strconv.Atoi(a); nerr != nil {
				continue
			}
			rest := append(append([]string(nil), pos[:i]...), pos[i+1:]...)
			if args(cmd, rest) == nil {
				return fmt.Errorf("--evidence takes its count as --evidence=%s", a)
			}
		}
		return err
	}
}
