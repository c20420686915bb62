// Command charter-action is the CI action's helper for what a shell
// script does badly: reading the GitHub event payload (JSON) and posting
// the pull-request comment through GitHub's REST API. entrypoint.sh
// builds it next to charter (not on PATH) and runs:
//
//	charter-action event
//	    prints the payload fields the baseline depends on as key=value
//	    lines (pr_number, base_sha, base_ref, before, after, created,
//	    deleted, default_branch, head_ref), from $GITHUB_EVENT_PATH;
//	charter-action comment --body-file FILE --marker MARKER
//	    creates, or updates when one carries MARKER, the one comment of
//	    this gate on the pull request of the event, through
//	    $GITHUB_API_URL (default https://api.github.com) with the token
//	    in $CHARTER_GITHUB_TOKEN; prints "created URL" or "updated URL".
//
// Errors are one line on stderr and exit status 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "charter-action: "+err.Error())
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: charter-action event | comment --body-file FILE --marker MARKER")
	}
	switch args[0] {
	case "event":
		ev, err := readEvent(os.Getenv("GITHUB_EVENT_PATH"))
		if err != nil {
			return err
		}
		return ev.write(stdout)
	case "comment":
		fs := flag.NewFlagSet("comment", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		bodyFile := fs.String("body-file", "", "Markdown body")
		marker := fs.String("marker", "", "hidden marker that identifies the comment")
		number := fs.Int("number", 0, "pull request number (default: the event's)")
		if err := fs.Parse(args[1:]); err != nil {
			return fmt.Errorf("comment: %w", err)
		}
		if *bodyFile == "" || *marker == "" {
			return errors.New("comment: --body-file and --marker are required")
		}
		body, err := os.ReadFile(*bodyFile)
		if err != nil {
			return fmt.Errorf("comment: read body: %w", err)
		}
		n := *number
		if n == 0 {
			ev, err := readEvent(os.Getenv("GITHUB_EVENT_PATH"))
			if err != nil {
				return err
			}
			n = ev.PRNumber
		}
		if n == 0 {
			return errors.New("comment: the event has no pull request")
		}
		c := &client{
			api:   envOr("GITHUB_API_URL", "https://api.github.com"),
			repo:  os.Getenv("GITHUB_REPOSITORY"),
			token: os.Getenv("CHARTER_GITHUB_TOKEN"),
		}
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		verb, url, err := c.upsertComment(ctx, n, *marker, commentBody(*marker, string(body), runURL()))
		if err != nil {
			return fmt.Errorf("comment on pull request #%d: %w", n, err)
		}
		_, err = fmt.Fprintf(stdout, "%s %s\n", verb, url)
		return err
	}
	return fmt.Errorf("unknown command %q: want event or comment", args[0])
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// runURL is the URL of the workflow run, "" outside GitHub Actions.
func runURL() string {
	server, repo, id := envOr("GITHUB_SERVER_URL", "https://github.com"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if repo == "" || id == "" {
		return ""
	}
	return server + "/" + repo + "/actions/runs/" + id
}
