package global

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/registry"
)

// FlagContext and EnvContext name the schema context registry commands
// work in (a registry's Confluent context, ".ctx"): the client sends every
// request under /contexts/{ctx}/, so subjects are the context's and
// schema IDs its own.
const (
	FlagContext = "context"
	EnvContext  = "CHARTER_CONTEXT"
)

// contextName is what a context name holds after its dot (as the
// registry accepts in a /contexts/{ctx} prefix).
var contextName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)

// addContextFlag registers --context on fs (a root persistent flag).
func addContextFlag(fs *pflag.FlagSet) {
	fs.String(FlagContext, "", "schema context to work in, such as .staging: subjects and schema IDs are that context's (default $"+EnvContext+", then the default context \".\")")
}

// Context returns the schema context of cmd, as the registry names it
// (".ctx"; "." for the default one): --context, else $CHARTER_CONTEXT,
// else ".". "ctx" and ":.ctx:" name ".ctx" too. A name with other
// characters than letters, digits, '.', '_' and '-' is an error.
func Context(cmd *cobra.Command) (string, error) {
	v, set := flag(cmd, FlagContext)
	from := "--" + FlagContext
	if !set || strings.TrimSpace(v) == "" {
		v, from = os.Getenv(EnvContext), EnvContext
	}
	name := registry.NormalizeContextName(strings.TrimSpace(v))
	if name != registry.DefaultContext && !contextName.MatchString(name[1:]) {
		return "", fmt.Errorf("invalid %s %q: a context name holds letters, digits, '.', '_' and '-'", from, v)
	}
	return name, nil
}

// contextURL returns base with cmd's context prefix (/contexts/.ctx)
// appended; base itself for the default context.
func contextURL(cmd *cobra.Command, base string) (string, error) {
	name, err := Context(cmd)
	if err != nil || name == registry.DefaultContext {
		return base, err
	}
	return strings.TrimRight(base, "/") + "/contexts/" + url.PathEscape(name), nil
}
