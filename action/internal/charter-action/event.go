package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is what the baseline depends on in a GitHub event payload
// (docs.github.com, "Webhook events and payloads"): pull_request and
// pull_request_target (pull_request.base), push (before, after, created,
// deleted), merge_group (merge_group.base_sha, base_ref) and, for every
// event, repository.default_branch.
type event struct {
	PRNumber      int
	BaseSHA       string
	BaseRef       string
	HeadRef       string
	Before        string
	After         string
	Created       bool
	Deleted       bool
	DefaultBranch string
}

type payload struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Base   struct {
			SHA string `json:"sha"`
			Ref string `json:"ref"`
		} `json:"base"`
		Head struct {
			Ref string `json:"ref"`
		} `json:"head"`
	} `json:"pull_request"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Created    bool   `json:"created"`
	Deleted    bool   `json:"deleted"`
	MergeGroup *struct {
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
		HeadRef string `json:"head_ref"`
	} `json:"merge_group"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// readEvent reads the payload at path; an unset path is an empty event
// (a run outside GitHub Actions).
func readEvent(path string) (*event, error) {
	if path == "" {
		return &event{}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the event payload: %w", err)
	}
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("read the event payload %s: %w", path, err)
	}
	ev := &event{Before: p.Before, After: p.After, Created: p.Created, Deleted: p.Deleted, DefaultBranch: p.Repository.DefaultBranch}
	if pr := p.PullRequest; pr != nil {
		ev.PRNumber = pr.Number
		if ev.PRNumber == 0 {
			ev.PRNumber = p.Number
		}
		ev.BaseSHA, ev.BaseRef, ev.HeadRef = pr.Base.SHA, pr.Base.Ref, pr.Head.Ref
	}
	if mg := p.MergeGroup; mg != nil {
		ev.BaseSHA = mg.BaseSHA
		ev.BaseRef = strings.TrimPrefix(mg.BaseRef, "refs/heads/")
		ev.HeadRef = strings.TrimPrefix(mg.HeadRef, "refs/heads/")
	}
	return ev, nil
}

// write prints the fields as key=value lines for the shell (empty ones
// left out). A value with a line break or NUL is refused: no payload
// field the script reads may carry one.
func (e *event) write(w io.Writer) error {
	var b strings.Builder
	add := func(k, v string) error {
		if v == "" {
			return nil
		}
		if strings.ContainsAny(v, "\n\r\x00") {
			return errors.New("event payload: " + k + " has a line break")
		}
		b.WriteString(k + "=" + v + "\n")
		return nil
	}
	num := ""
	if e.PRNumber > 0 {
		num = fmt.Sprint(e.PRNumber)
	}
	for _, kv := range [][2]string{
		{"pr_number", num}, {"base_sha", e.BaseSHA}, {"base_ref", e.BaseRef}, {"head_ref", e.HeadRef},
		{"before", e.Before}, {"after", e.After}, {"created", boolString(e.Created)}, {"deleted", boolString(e.Deleted)},
		{"default_branch", e.DefaultBranch},
	} {
		if err := add(kv[0], kv[1]); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return ""
}
