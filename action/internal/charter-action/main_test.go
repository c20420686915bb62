package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/internal/ghfake"
)

func writeEvent(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvent(t *testing.T) {
	tests := []struct{ name, payload, want string }{
		{"pull_request", `{"action":"synchronize","number":42,"pull_request":{"number":42,"base":{"ref":"main","sha":"1111111111111111111111111111111111111111"},"head":{"ref":"feature/x","sha":"2222222222222222222222222222222222222222"}},"repository":{"full_name":"acme/shop","default_branch":"main"}}`,
			"pr_number=42\nbase_sha=1111111111111111111111111111111111111111\nbase_ref=main\nhead_ref=feature/x\ndefault_branch=main\n"},
		{"push", `{"ref":"refs/heads/main","before":"aaaa","after":"bbbb","created":false,"deleted":false,"repository":{"default_branch":"trunk"}}`,
			"before=aaaa\nafter=bbbb\ndefault_branch=trunk\n"},
		{"push of a new branch", `{"ref":"refs/heads/x","before":"0000000000000000000000000000000000000000","after":"bbbb","created":true,"repository":{"default_branch":"main"}}`,
			"before=0000000000000000000000000000000000000000\nafter=bbbb\ncreated=true\ndefault_branch=main\n"},
		{"merge_group", `{"action":"checks_requested","merge_group":{"head_sha":"cccc","head_ref":"refs/heads/gh-readonly-queue/main/pr-7-aaaa","base_sha":"dddd","base_ref":"refs/heads/main"},"repository":{"default_branch":"main"}}`,
			"base_sha=dddd\nbase_ref=main\nhead_ref=gh-readonly-queue/main/pr-7-aaaa\ndefault_branch=main\n"},
		{"workflow_dispatch", `{"inputs":{},"ref":"refs/heads/main","repository":{"default_branch":"main"}}`, "default_branch=main\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GITHUB_EVENT_PATH", writeEvent(t, tc.payload))
			var out bytes.Buffer
			if err := run(context.Background(), []string{"event"}, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
	t.Setenv("GITHUB_EVENT_PATH", writeEvent(t, `{"pull_request":{"base":{"ref":"ma\nin"}}}`))
	if err := run(context.Background(), []string{"event"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "base_ref has a line break") {
		t.Errorf("line break: %v", err)
	}
	t.Setenv("GITHUB_EVENT_PATH", writeEvent(t, `{not json`))
	if err := run(context.Background(), []string{"event"}, &bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), "read the event payload ") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestComment: the first run creates the comment, the second finds it by
// its marker (past a full page of other comments) and updates it.
func TestComment(t *testing.T) {
	gh := ghfake.New(t, "acme/shop", "s3cret")
	for i := range 100 {
		gh.Seed(7, "someone else's comment "+string(rune('a'+i%26)))
	}
	t.Setenv("GITHUB_API_URL", gh.URL)
	t.Setenv("GITHUB_REPOSITORY", "acme/shop")
	t.Setenv("CHARTER_GITHUB_TOKEN", "s3cret")
	t.Setenv("GITHUB_EVENT_PATH", writeEvent(t, `{"number":7,"pull_request":{"number":7}}`))
	body := filepath.Join(t.TempDir(), "body.md")
	for i, want := range []string{"created", "updated"} {
		md := "### summary " + want
		if err := os.WriteFile(body, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(context.Background(), []string{"comment", "--body-file", body, "--marker", "<!-- charter:. -->"}, &out); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		cs := gh.Comments(7)
		if len(cs) != 101 {
			t.Fatalf("run %d: %d comments, want 101", i, len(cs))
		}
		mine := cs[100]
		if mine.Body != "<!-- charter:. -->\n"+md {
			t.Errorf("run %d: body %q", i, mine.Body)
		}
		if got := out.String(); got != want+" "+mine.HTMLURL+"\n" {
			t.Errorf("run %d: printed %q", i, got)
		}
	}
	// Wrong token: one line naming the call and GitHub's message.
	t.Setenv("CHARTER_GITHUB_TOKEN", "wrong")
	err := run(context.Background(), []string{"comment", "--body-file", body, "--marker", "m"}, &bytes.Buffer{})
	if err == nil || err.Error() != "comment on pull request #7: list comments: GET /repos/acme/shop/issues/7/comments: 401 Unauthorized: Bad credentials" {
		t.Errorf("wrong token: %v", err)
	}
	// Another repository: 404 with the permissions hint.
	t.Setenv("CHARTER_GITHUB_TOKEN", "s3cret")
	t.Setenv("GITHUB_REPOSITORY", "acme/other")
	err = run(context.Background(), []string{"comment", "--body-file", body, "--marker", "m"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "404 Not Found: Not Found (the token needs permissions: pull-requests: write") {
		t.Errorf("404: %v", err)
	}
	// Not a pull request.
	t.Setenv("GITHUB_EVENT_PATH", writeEvent(t, `{"before":"a","after":"b"}`))
	if err := run(context.Background(), []string{"comment", "--body-file", body, "--marker", "m"}, &bytes.Buffer{}); err == nil || err.Error() != "comment: the event has no pull request" {
		t.Errorf("push: %v", err)
	}
}

func TestCommentBodyCut(t *testing.T) {
	long := strings.Repeat("é", maxBody)
	b := commentBody("<!-- m -->", long, "https://github.com/a/b/actions/runs/1")
	if len(b) > maxBody || !strings.HasPrefix(b, "<!-- m -->\n") || !strings.HasSuffix(b, "the whole of it is on the [run page](https://github.com/a/b/actions/runs/1))\n") {
		t.Errorf("cut body: %d bytes, ends %q", len(b), b[len(b)-80:])
	}
	if !strings.Contains(b, "é\n\n… (cut") {
		t.Error("cut inside a character")
	}
	if got := commentBody("m", "short", ""); got != "m\nshort" {
		t.Errorf("short body %q", got)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"comment"}, {"comment", "--bogus"}} {
		if err := run(context.Background(), args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
