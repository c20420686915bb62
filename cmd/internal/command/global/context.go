package global

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/action/project"
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

// addContextFlag registers --context on fs (a root persistent flag).
func addContextFlag(fs *pflag.FlagSet) {
	fs.String(FlagContext, "", "schema context to work in, such as .staging (\".\" is the default context alone): subjects and schema IDs are that context's (default $"+EnvContext+", then charter.yaml's context; without any, the registry's plain routes)")
}

// Context returns the schema context of cmd, as the registry names it
// (".ctx"; "." for the default one): --context, else $CHARTER_CONTEXT,
// else the context: of the charter.yaml found from the working directory
// upwards, else ".". "ctx" and ":.ctx:" name ".ctx" too. A name the
// registry refuses (registry.ParseContextName: a control character, "*",
// more than 255 bytes) or with a colon in it is an error.
func Context(cmd *cobra.Command) (string, error) {
	name, _, err := namedContext(cmd)
	return name, err
}

// namedContext is Context, and whether --context or $CHARTER_CONTEXT
// named one at all (given is false for neither: the registry's plain
// routes, which list every context's subjects; "." given is the default
// context alone).
func namedContext(cmd *cobra.Command) (name string, given bool, err error) {
	return namedContextOr(cmd, "", "")
}

// namedContextOr is namedContext with the context of a charter.yaml
// after the flag and the variable: project's (from names the file), else
// that of the charter.yaml found from the working directory upwards, as
// RegistryURL reads its registry.
func namedContextOr(cmd *cobra.Command, project, projectFrom string) (name string, given bool, err error) {
	v, set := flag(cmd, FlagContext)
	from := "--" + FlagContext
	if !set || strings.TrimSpace(v) == "" {
		v, from = os.Getenv(EnvContext), EnvContext
	}
	if strings.TrimSpace(v) == "" {
		v, from = project, projectFrom
		if v == "" {
			v, from = projectContext()
		}
	}
	raw := strings.TrimSpace(v)
	if raw == "" {
		return registry.DefaultContext, false, nil
	}
	inner := raw
	if len(inner) > 2 && strings.HasPrefix(inner, ":.") && strings.HasSuffix(inner, ":") {
		inner = inner[1 : len(inner)-1] // ":.ctx:", the context as a subject prefix names it
	}
	// The registry's rule (registry.ParseContextName, that of a qualified
	// subject's context), but that a colon is refused anywhere else: "a:b",
	// ":*:", ":", "::" name no context.
	name, err = registry.ParseContextName(inner)
	if err == nil && strings.Contains(inner, ":") {
		err = errors.New("a context name cannot contain a colon")
	}
	if err != nil {
		reason := err.Error()
		if _, after, ok := strings.Cut(reason, ": "); ok && strings.HasPrefix(reason, "Invalid context ") {
			reason = after
		}
		return "", false, fmt.Errorf("invalid %s %q: %s; a context name is .NAME (or NAME, or :.NAME:), NAME anything but a colon, a control character or \"*\"; \".\" is the default context", from, v, reason)
	}
	return name, true, nil
}

// projectContext returns the context: of the charter.yaml found from
// the working directory upwards and "context: in PATH", "" without one.
func projectContext() (string, string) {
	p, err := project.Find(".")
	if err != nil || strings.TrimSpace(p.Config.Context) == "" {
		return "", ""
	}
	return p.Config.Context, "context: in " + p.ConfigPath
}

// ContextLabel names cmd's context in messages: "context .ctx", "the
// default context", or "" when none was named.
func ContextLabel(cmd *cobra.Command) string {
	name, given, err := namedContext(cmd)
	switch {
	case err != nil || !given:
		return ""
	case name == registry.DefaultContext:
		return "the default context"
	}
	return "context " + name
}

// contextURL returns base with cmd's context prefix (/contexts/.ctx)
// appended; base itself when no context is named. The default context
// named (".") is /contexts/. too, as Confluent's ContextFilter: the
// plain routes list every context's subjects, it the default's alone.
func contextURL(cmd *cobra.Command, base string, t Target) (string, error) {
	name, given, err := namedContextOr(cmd, t.Context, t.ContextFrom)
	if err != nil || !given {
		return base, err
	}
	return strings.TrimRight(base, "/") + "/contexts/" + url.PathEscape(name), nil
}

// ContextScope returns the schema context whose own level a command
// without SUBJECT reads or changes under --context (".ctx"; the
// registry's /contexts/.ctx/config and /mode are the context's level,
// Confluent's :.ctx:), and false when no context other than the default
// one is named (the global level).
func ContextScope(cmd *cobra.Command) (string, bool) {
	name, given, err := namedContext(cmd)
	if err != nil || !given || name == registry.DefaultContext {
		return "", false
	}
	return name, true
}

// ContextFilter returns, when --context ($CHARTER_CONTEXT) names one,
// whether a subject as the registry records it (":.ctx:name" in context
// .ctx, ":.ctx:" its level, an unqualified name or "" in the default
// context) belongs to that context, and qualify, which names a subject
// of the context as the registry records it. ok is false when no
// context is named: every subject is in scope.
func ContextFilter(cmd *cobra.Command) (in func(subject string) bool, qualify func(subject string) string, ok bool) {
	name, given, err := namedContext(cmd)
	if err != nil || !given {
		return nil, nil, false
	}
	if name == registry.DefaultContext {
		in = func(s string) bool { return !strings.HasPrefix(s, ":.") || strings.HasPrefix(s, ":.:") }
		qualify = func(s string) string { return s }
		return in, qualify, true
	}
	prefix := ":" + name + ":"
	in = func(s string) bool { return strings.HasPrefix(s, prefix) }
	qualify = func(s string) string {
		if s == "" || strings.HasPrefix(s, ":.") || strings.HasPrefix(s, ":*:") {
			return s
		}
		return prefix + s
	}
	return in, qualify, true
}

// NoticeWholeRegistry tells stderr, when --context ($CHARTER_CONTEXT)
// names a context, that cmd (export, import: a whole-registry dump) does
// not keep to it: what says what it does instead.
func NoticeWholeRegistry(cmd *cobra.Command, what string) {
	if name, given, err := namedContext(cmd); err == nil && given {
		fmt.Fprintf(cmd.ErrOrStderr(), "charter: notice: %s %s, every context: --%s %s does not narrow it\n", strings.TrimPrefix(cmd.CommandPath(), "charter "), what, FlagContext, name)
	}
}
