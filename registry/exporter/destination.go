package exporter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// requestTimeout bounds one request to a destination.
const requestTimeout = 30 * time.Second

// maxAnswer bounds how much of a destination's answer is read, in bytes.
const maxAnswer = 64 << 10

// destination is the REST API of the registry an exporter copies into:
// the first URL of its schema.registry.url, with its credentials.
type destination struct {
	base  string // URL without a trailing slash
	hc    *http.Client
	user  string
	pass  string
	basic bool
	token string
	agent string
}

// errNoURL is the trace of an exporter whose config has no
// schema.registry.url.
var errNoURL = errors.New("the exporter's config has no " + ConfigURL + " (the destination registry's URL)")

// newDestination returns the destination of config c. Basic auth comes
// from basic.auth.user.info (credentials source USER_INFO, the default),
// a bearer token from bearer.auth.token (source STATIC_TOKEN).
func newDestination(c map[string]string, hc *http.Client) (*destination, error) {
	raw, ok := c[ConfigURL]
	if !ok || strings.TrimSpace(raw) == "" {
		return nil, errNoURL
	}
	urls, err := CheckURL(raw)
	if err != nil {
		return nil, err
	}
	d := &destination{base: strings.TrimRight(urls[0], "/"), hc: hc, agent: "charter-exporter"}
	if info, ok := c[ConfigUserInfo]; ok {
		src := strings.ToUpper(c[ConfigCredentialSource])
		if src != "" && src != "USER_INFO" {
			return nil, fmt.Errorf("%s %q is not supported (USER_INFO is)", ConfigCredentialSource, c[ConfigCredentialSource])
		}
		user, pass, _ := strings.Cut(info, ":")
		d.user, d.pass, d.basic = user, pass, true
	} else if tok, ok := c[ConfigBearerToken]; ok {
		d.token = tok
	}
	return d, nil
}

// destError is a destination's refusal: its status and Confluent error
// code (0 when the body had none).
type destError struct {
	Method, Path string
	Status, Code int
	Message      string
}

func (e *destError) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("%s %s: %d error %d: %s", e.Method, e.Path, e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// do sends method path (segments, each escaped) with query and a JSON
// body, decoding a 2xx answer into out when not nil.
func (d *destination) do(ctx context.Context, method string, path []string, query url.Values, in, out any) error {
	var b strings.Builder
	for _, seg := range path {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	p := b.String()
	u := d.base + p
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, p, err)
		}
		body = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, p, err)
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json; q=0.9")
	req.Header.Set("User-Agent", d.agent)
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	if d.basic {
		req.SetBasicAuth(d.user, d.pass)
	} else if d.token != "" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		// url.Error names the URL, which holds no credentials (CheckURL
		// refuses user info).
		return fmt.Errorf("%s %s: %w", method, p, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, p, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &destError{Method: method, Path: p, Status: resp.StatusCode}
		var eb struct {
			Code    int    `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(data, &eb) == nil && eb.Code != 0 {
			e.Code, e.Message = eb.Code, clip(eb.Message)
		} else {
			e.Message = clip(strings.TrimSpace(string(data)))
		}
		return e
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, p, err)
		}
	}
	return nil
}

// setMode sets subject's mode (PUT /mode/{subject}?force=true): IMPORT
// before copies, so that the subject takes versions with their source
// IDs, or the source's READONLY.
func (d *destination) setMode(ctx context.Context, subject, mode string) error {
	return d.do(ctx, http.MethodPut, []string{"mode", subject}, url.Values{"force": {"true"}}, map[string]string{"mode": mode}, nil)
}

// register registers v under subject with its source ID and version
// (POST /subjects/{subject}/versions) and checks the ID answered: a
// destination that holds the version already answers its ID again.
func (d *destination) register(ctx context.Context, subject string, v Version, refs []Reference) error {
	body := map[string]any{"schema": v.Schema, "id": v.ID, "version": v.Version}
	if v.Type != "" && v.Type != "AVRO" {
		body["schemaType"] = v.Type
	}
	if len(refs) > 0 {
		body["references"] = refs
	}
	if len(v.Metadata) > 0 {
		body["metadata"] = v.Metadata
	}
	if len(v.RuleSet) > 0 {
		body["ruleSet"] = v.RuleSet
	}
	var out struct {
		ID int64 `json:"id"`
	}
	if err := d.do(ctx, http.MethodPost, []string{"subjects", subject, "versions"}, nil, body, &out); err != nil {
		return err
	}
	if out.ID != v.ID {
		return fmt.Errorf("POST /subjects/%s/versions: the destination answered ID %d for version %d, not the source's %d",
			url.PathEscape(subject), out.ID, v.Version, v.ID)
	}
	return nil
}

// setConfig replaces subject's config (PUT /config/{subject}) with cfg,
// a ConfigUpdateRequest body; nil deletes it (DELETE /config/{subject}),
// which a subject without one answers 40408 (or 40401), not an error.
func (d *destination) setConfig(ctx context.Context, subject string, cfg json.RawMessage) error {
	if cfg == nil {
		err := d.do(ctx, http.MethodDelete, []string{"config", subject}, nil, nil, nil)
		var de *destError
		if errors.As(err, &de) && de.Status == http.StatusNotFound {
			return nil
		}
		return err
	}
	return d.do(ctx, http.MethodPut, []string{"config", subject}, nil, cfg, nil)
}

// probeTimeout bounds a reachability probe.
const probeTimeout = 2 * time.Second

// reachable reports whether the destination answers HTTP at all (any
// status): GET on its base URL.
func (d *destination) reachable(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/", nil)
	if err != nil {
		return false
	}
	req.Header.Set("User-Agent", d.agent)
	resp, err := d.hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	return true
}

// versionIDs returns the schema ID of each version of subject the
// destination holds (soft-deleted included) among wanted: none when it
// has no such subject.
func (d *destination) versionIDs(ctx context.Context, subject string, wanted []int) (map[int]int64, error) {
	var versions []int
	err := d.do(ctx, http.MethodGet, []string{"subjects", subject, "versions"}, url.Values{"deleted": {"true"}}, nil, &versions)
	var de *destError
	if errors.As(err, &de) && de.Status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int]int64{}
	for _, v := range versions {
		if !slices.Contains(wanted, v) {
			continue
		}
		var sv struct {
			ID int64 `json:"id"`
		}
		err := d.do(ctx, http.MethodGet, []string{"subjects", subject, "versions", strconv.Itoa(v)}, url.Values{"deleted": {"true"}}, nil, &sv)
		if errors.As(err, &de) && de.Status == http.StatusNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[v] = sv.ID
	}
	return out, nil
}
