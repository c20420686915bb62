package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// ConfigFlag names the flag of the YAML file that gives serve's flags.
const ConfigFlag = "config"

// Where a setting comes from, strongest first: the command line, then its
// environment variable (CHARTER_LISTEN, CHARTER_DB, CHARTER_AUTH_CONFIG),
// then the --config file, then the default. The file's keys are the
// flags' names without the dashes (listen, db, auth-config, cors-origin,
// ...); a repeatable flag takes a list.

// applyConfigFile sets, from the YAML file path, every flag of fs not
// given on the command line, and returns the names of the flags that were
// (for the environment variables, which only the command line beats). An
// unknown key, a key given twice, a value that is not a scalar (or, for a
// repeatable flag, a list of scalars) or that the flag refuses is an
// error naming the file and line. path "" reads no file.
func applyConfigFile(fs *pflag.FlagSet, path string) (map[string]bool, error) {
	onCommandLine := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			onCommandLine[f.Name] = true
		}
	})
	if path == "" {
		return onCommandLine, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read --%s: %w", ConfigFlag, err)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return onCommandLine, nil // an empty file
		}
		return nil, fmt.Errorf("--%s %s: %v", ConfigFlag, path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, n.Line, fmt.Sprintf(format, args...))
	}
	if len(doc.Content) == 0 {
		return onCommandLine, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return onCommandLine, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, at(root, "want a mapping of flag names to values, such as `listen: \":8081\"`")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		name := k.Value
		f := fs.Lookup(name)
		if k.Kind != yaml.ScalarNode || f == nil || name == ConfigFlag || name == "help" {
			return nil, at(k, "unknown key %q: the keys are charter serve's flag names without dashes (see charter serve --help)", name)
		}
		if seen[name] {
			return nil, at(k, "%s is given twice", name)
		}
		seen[name] = true
		var values []*yaml.Node
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			return nil, at(v, "%s has no value", name)
		case v.Kind == yaml.ScalarNode:
			values = []*yaml.Node{v}
		case v.Kind == yaml.SequenceNode && strings.HasSuffix(f.Value.Type(), "Slice"):
			values = v.Content
		case v.Kind == yaml.SequenceNode:
			return nil, at(v, "%s takes one value, not a list", name)
		default:
			return nil, at(v, "%s: want a value, not a mapping", name)
		}
		for _, item := range values {
			if item.Kind != yaml.ScalarNode {
				return nil, at(item, "%s: want a value, not a nested list or mapping", name)
			}
		}
		if onCommandLine[name] {
			continue // the command line wins
		}
		for _, item := range values {
			if err := fs.Set(name, item.Value); err != nil {
				return nil, at(item, "invalid %s %q: %v", name, item.Value, err)
			}
		}
	}
	return onCommandLine, nil
}
