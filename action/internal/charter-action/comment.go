package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxBody is GitHub's limit on a comment body, in characters.
const maxBody = 65536

// client talks to GitHub's REST API ("Issue comments": a pull request's
// conversation comments are its issue's).
type client struct {
	api, repo, token string
	http             *http.Client
}

type comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
}

// commentBody is the marker, then the summary; a summary over GitHub's
// limit is cut, pointing at the run page for the rest.
func commentBody(marker, md, run string) string {
	body := marker + "\n" + md
	if len(body) <= maxBody {
		return body
	}
	note := "\n\n… (cut: the summary is longer than a comment may be"
	if run != "" {
		note += "; the whole of it is on the [run page](" + run + ")"
	}
	note += ")\n"
	cut := maxBody - len(note)
	for cut > 0 && !utf8Start(body[cut]) {
		cut--
	}
	return body[:cut] + note
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// upsertComment updates the pull request's comment that holds marker, or
// creates one; it returns "created" or "updated" and the comment's URL.
func (c *client) upsertComment(ctx context.Context, number int, marker, body string) (string, string, error) {
	if c.repo == "" || !strings.Contains(c.repo, "/") {
		return "", "", fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", c.repo)
	}
	if c.token == "" {
		return "", "", errors.New("no token (the action's github-token input)")
	}
	existing, err := c.findComment(ctx, number, marker)
	if err != nil {
		return "", "", err
	}
	payload := map[string]string{"body": body}
	var out comment
	if existing != nil {
		if err := c.do(ctx, http.MethodPatch, fmt.Sprintf("/repos/%s/issues/comments/%d", c.repo, existing.ID), payload, &out); err != nil {
			return "", "", fmt.Errorf("update comment %d: %w", existing.ID, err)
		}
		return "updated", out.HTMLURL, nil
	}
	if err := c.do(ctx, http.MethodPost, fmt.Sprintf("/repos/%s/issues/%d/comments", c.repo, number), payload, &out); err != nil {
		return "", "", fmt.Errorf("create comment: %w", err)
	}
	return "created", out.HTMLURL, nil
}

// findComment pages through the comments (100 a page) for the first one
// whose body holds marker.
func (c *client) findComment(ctx context.Context, number int, marker string) (*comment, error) {
	for page := 1; page <= 100; page++ {
		var list []comment
		if err := c.do(ctx, http.MethodGet, fmt.Sprintf("/repos/%s/issues/%d/comments?per_page=100&page=%d", c.repo, number, page), nil, &list); err != nil {
			return nil, fmt.Errorf("list comments: %w", err)
		}
		for i := range list {
			if strings.Contains(list[i].Body, marker) {
				return &list[i], nil
			}
		}
		if len(list) < 100 {
			return nil, nil
		}
	}
	return nil, nil
}

func (c *client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.api, "/")+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("User-Agent", "charter-action")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.http
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, req.URL.Path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b, &e)
		msg := fmt.Sprintf("%s %s: %s", method, req.URL.Path, resp.Status)
		if e.Message != "" {
			msg += ": " + e.Message
		}
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
			msg += " (the token needs permissions: pull-requests: write; a pull request from a fork gets a read-only token)"
		}
		return errors.New(msg)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, req.URL.Path, err)
		}
	}
	return nil
}
