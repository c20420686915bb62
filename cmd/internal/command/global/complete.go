package global

import (
	"context"
	"strconv"
	"time"

	"github.com/spf13/cobra"

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
		c, err := Client(cmd)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
		defer cancel()
		vs, err := c.VersionStates(ctx, args[0], false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := []string{"latest"}
		for _, v := range vs {
			out = append(out, strconv.Itoa(v.Version))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
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
