package project

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/charter-dev/charter/compat/rule"
)

// unmatchedPatterns reports, as RuleConfigPatternUnmatched, every files
// pattern of the config's schemas that matches no file of the working
// tree (fresh-user report 2, L3: a typo passed the gate with 0 subjects).
func (c *checker) unmatchedPatterns(ctx context.Context) error {
	files, err := dirTree{root: c.p.Root}.list(ctx)
	if err != nil {
		return err
	}
	cfgFile := c.configFile()
	for i, m := range c.p.Config.Schemas {
		for _, pattern := range m.Files {
			g, err := compileGlob(pattern)
			if err != nil {
				// Load has validated the patterns; a pattern that does
				// not compile here matches nothing either.
				g = nil
			}
			matched := false
			for _, f := range files {
				if g != nil && g.match(f) {
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			c.add(rule.Finding{RuleID: RuleConfigPatternUnmatched, Severity: rule.Warning, File: cfgFile,
				Message: fmt.Sprintf("schemas[%d] files pattern %q matches no file under %s", i, pattern, c.p.Root),
				Hint:    "fix the pattern, or remove it; in CI set the rule to error under severities to fail on it"}, nil)
		}
	}
	return nil
}

// configFile is charter.yaml's path relative to the project root, the
// file of the findings about charter.yaml itself.
func (c *checker) configFile() string {
	if c.p.ConfigPath != "" {
		if rel, err := filepath.Rel(c.p.Root, c.p.ConfigPath); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return ConfigFile
}
