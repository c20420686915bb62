// Package client is the Go client of Charter's REST API, which is the
// Confluent Schema Registry API (docs.confluent.io, "Schema Registry API
// Reference"); it works against Confluent's server too.
//
// Every call takes a context first and returns either the decoded answer or
// an error. Errors the server reports as `{"error_code": N, "message": "..."}`
// decode through package srerr to the same sentinels the server uses, so
//
//	_, err := c.SchemaByID(ctx, 42)
//	if errors.Is(err, srerr.ErrSchemaNotFound) { … }
//
// works as it does on the server side; the *srerr.APIError in the chain
// carries the server's message. Transport failures (connection refused, a
// cancelled context) are returned wrapped, and answers that are not
// Confluent error bodies (a proxy's HTML page) become a *StatusError.
//
// The client imports no server package: only srerr and compat's types.
// It is safe for concurrent use. It does not cache and does not retry; see
// package upcast for an ID cache.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/registry/srerr"
)

// ContentType is the media type the client sends and prefers
// (Confluent's v1 vendor type).
const ContentType = "application/vnd.schemaregistry.v1+json"

const accept = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5"

// maxErrorBody bounds how much of an error answer is read, in bytes.
const maxErrorBody = 64 << 10

// Client talks to one registry. Create it with New.
type Client struct {
	base      *url.URL
	hc        *http.Client
	userAgent string
	header    http.Header
	user      string
	pass      string
	basic     bool
	token     string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the http.Client used for every request (default
// http.DefaultClient). Timeouts, transports and TLS are configured there.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithBasicAuth sends HTTP basic credentials with every request (Confluent's
// basic.auth.user.info). Default: none.
func WithBasicAuth(user, password string) Option {
	return func(c *Client) { c.user, c.pass, c.basic = user, password, true }
}

// WithBearerToken sends `Authorization: Bearer token` with every request.
// Default: none.
func WithBearerToken(token string) Option {
	return func(c *Client) { c.token = token }
}

// WithHeader adds a header to every request (for example a tenant or
// tracing header). Default: none.
func WithHeader(key, value string) Option {
	return func(c *Client) { c.header.Add(key, value) }
}

// WithUserAgent sets the User-Agent header (default "charter-client").
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// New returns a client of the registry at baseURL, for example
// "http://127.0.0.1:8081" or "https://sr.example.com/contexts/.prod".
// The URL must be absolute http or https; a trailing slash is ignored.
func New(baseURL string, opts ...Option) (*Client, error) {
	raw := strings.TrimSpace(baseURL)
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return nil, fmt.Errorf("registry URL %q: want an http:// or https:// URL", baseURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("registry URL %q: %w", baseURL, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("registry URL %q: no host", baseURL)
	}
	// Keep the escaping of the path (a context named .a/b is
	// /contexts/.a%2Fb), without the trailing slash.
	escaped := strings.TrimRight(u.EscapedPath(), "/")
	if u.Path, err = url.PathUnescape(escaped); err != nil {
		return nil, fmt.Errorf("registry URL %q: %w", baseURL, err)
	}
	u.RawPath = ""
	if escaped != u.EscapedPath() {
		u.RawPath = escaped
	}
	u.RawQuery, u.Fragment = "", ""
	c := &Client{base: u, hc: http.DefaultClient, userAgent: "charter-client", header: http.Header{}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// URL returns the registry's base URL.
func (c *Client) URL() string { return c.base.String() }

// StatusError is an answer with a non-2xx status whose body is not a
// Confluent error body.
type StatusError struct {
	Method, URL string
	Status      int
	// Body is the start of the answer (at most 512 bytes).
	Body string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// errorBody is Confluent's ErrorMessage entity.
type errorBody struct {
	ErrorCode *int   `json:"error_code"`
	Message   string `json:"message"`
}

// decodeError turns a non-2xx answer into an error matchable with
// errors.Is against the srerr sentinels.
func decodeError(method, u string, status int, body []byte) error {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.ErrorCode != nil {
		sentinel := srerr.ForCode(*eb.ErrorCode)
		if sentinel == nil {
			// A code outside the table: keep it, with no sentinel to match.
			sentinel = &srerr.Error{Code: *eb.ErrorCode, Status: status, Name: "UNKNOWN", Message: eb.Message}
		}
		return &srerr.APIError{Err: sentinel, Message: eb.Message}
	}
	snippet := strings.TrimSpace(string(body))
	if len(snippet) > 512 {
		snippet = snippet[:512] + "…"
	}
	return &StatusError{Method: method, URL: u, Status: status, Body: snippet}
}

// do sends one request and decodes a 2xx JSON answer into out (unless out
// is nil).
func (c *Client) do(ctx context.Context, method string, path []string, query url.Values, in, out any) error {
	_, err := c.doHeader(ctx, method, path, query, in, out)
	return err
}

// doHeader is do that also returns the answer's headers.
func (c *Client) doHeader(ctx context.Context, method string, path []string, query url.Values, in, out any) (http.Header, error) {
	u, err := c.url(path, query)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	resp, err := c.send(ctx, method, u, body, accept)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Header, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.Header, fmt.Errorf("decode answer of %s %s: %w", method, u.Redacted(), err)
	}
	return resp.Header, nil
}

// url returns the URL of path (segments, each escaped) under the base URL,
// with query.
func (c *Client) url(path []string, query url.Values) (*url.URL, error) {
	u := *c.base
	var raw strings.Builder
	raw.WriteString(c.base.EscapedPath())
	for _, seg := range path {
		raw.WriteByte('/')
		raw.WriteString(url.PathEscape(seg))
	}
	u.RawPath = raw.String()
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("build URL: %w", err)
	}
	u.Path = p
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	return &u, nil
}

// send sends one request with the client's headers and credentials and
// returns a 2xx answer, whose body the caller closes; any other status is
// decoded into a Confluent error (or a StatusError). A body is sent as
// JSON.
func (c *Client) send(ctx context.Context, method string, u *url.URL, body io.Reader, acceptTypes string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Accept", acceptTypes)
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", ContentType)
	}
	if c.basic {
		req.SetBasicAuth(c.user, c.pass)
	} else if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, decodeError(method, u.Redacted(), resp.StatusCode, b)
	}
	return resp, nil
}

// IsNotFound reports whether err says that a subject, version or schema
// does not exist (Confluent 40401, 40402, 40403 or a plain 404).
func IsNotFound(err error) bool {
	return errors.Is(err, srerr.ErrSubjectNotFound) || errors.Is(err, srerr.ErrVersionNotFound) ||
		errors.Is(err, srerr.ErrSchemaNotFound) || errors.Is(err, srerr.ErrNotFound)
}

// itoa formats a schema ID or version for a path segment.
func itoa[T int | int64](n T) string { return strconv.FormatInt(int64(n), 10) }
