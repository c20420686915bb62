package global

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

// completeTimeout bounds the registry requests of shell completion.
const completeTimeout = 3 * time.Second

// CompleteSubjects is a cobra.ValidArgsFunction that completes the first
// argument with the registry's subjects; later arguments complete as
// files.
func CompleteSubjects(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return subjects(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// CompleteSubjectVersion is a cobra.ValidArgsFunction for SUBJECT
// [VERSION]: the registry's subjects, then the subject's versions and
// "latest".
func CompleteSubjectVersion(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return subjects(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
	case 1:
		return versions(cmd, args[0], true), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func subjects(cmd *cobra.Command, prefix string) []string {
	c, err := Client(cmd)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
	defer cancel()
	list, err := c.Subjects(ctx, client.WithSubjectPrefix(prefix))
	if err != nil {
		return nil
	}
	return list
}

// AnnotationValues is the flag annotation (pflag.Flag.Annotations) that
// holds the fixed set of values Enum registered for a flag; the
// completion test reads it.
const AnnotationValues = "charter_values"

// Enum makes flag of cmd complete with its fixed set of values (formats,
// levels, modes …), no file names. The values are also recorded in the
// flag's AnnotationValues annotation. A flag cmd does not have is a bug
// of the command's construction and panics at start-up (every test of
// the tree builds it).
func Enum(cmd *cobra.Command, flag string, values ...string) {
	f := cmd.Flags().Lookup(flag)
	if f == nil {
		panic("global.Enum: " + cmd.Name() + " has no flag --" + flag)
	}
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[AnnotationValues] = values
	if err := cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic("global.Enum: " + err.Error())
	}
}

// CompleteSubjectFlag makes flag of cmd complete with the registry's
// subjects (nothing, silently, when the registry cannot be reached).
func CompleteSubjectFlag(cmd *cobra.Command, flag string) {
	mustComplete(cmd, flag, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return subjects(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
}

// CompleteVersionFlag makes flag of cmd complete with the versions of
// the subject given by subjectFlag (already on the command line).
func CompleteVersionFlag(cmd *cobra.Command, flag, subjectFlag string) {
	mustComplete(cmd, flag, func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		s, _ := cmd.Flags().GetString(subjectFlag)
		if s == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return versions(cmd, s, false), cobra.ShellCompDirectiveNoFileComp
	})
}

func mustComplete(cmd *cobra.Command, flag string, fn cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(flag, fn); err != nil {
		panic("global: completion of --" + flag + ": " + err.Error())
	}
}

// versions lists the live versions of subject in the registry, with
// "latest" first when latest is set; nil when the registry cannot say.
func versions(cmd *cobra.Command, subject string, latest bool) []string {
	c, err := Client(cmd)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
	defer cancel()
	vs, err := c.VersionStates(ctx, subject, false)
	if err != nil {
		return nil
	}
	var out []string
	if latest {
		out = append(out, "latest")
	}
	for _, v := range vs {
		out = append(out, strconv.Itoa(v.Version))
	}
	return out
}

// CompleteOutput completes the global --output: the values of the
// command's own --format when it has a fixed set that --output stands for
// (one with text: check, diff, rules, contracts verify, upcast), else
// text and json (lineage graph's --format dot|mermaid|json is not one).
func CompleteOutput(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	return OutputValues(cmd), cobra.ShellCompDirectiveNoFileComp
}

// OutputValues are the values --output takes on cmd (see CompleteOutput).
func OutputValues(cmd *cobra.Command) []string {
	if f := cmd.LocalFlags().Lookup("format"); f != nil {
		if vs := f.Annotations[AnnotationValues]; slices.Contains(vs, "text") {
			return vs
		}
	}
	return []string{"text", "json"}
}

// FormatValues are the values of the --format of check and diff (every
// render format).
func FormatValues() []string {
	out := make([]string, len(render.Formats))
	for i, f := range render.Formats {
		out[i] = string(f)
	}
	return out
}

// LevelValues are the compatibility levels, as --level takes them.
func LevelValues() []string {
	out := make([]string, len(compat.Levels))
	for i, l := range compat.Levels {
		out[i] = string(l)
	}
	return out
}

// CompleteSubjectThenNothing is a cobra.ValidArgsFunction for SUBJECT
// followed by arguments that are neither files nor known values (ITEM,
// FIELD): the registry's subjects, then nothing.
func CompleteSubjectThenNothing(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return subjects(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
}
