package contracts

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"sort"
	"strconv"
	"strings"
)

// Pact specification versions this package reads.
const (
	SpecV3 = "3.0.0"
	SpecV4 = "4.0"
)

// ErrMalformedPact is wrapped by every error ParsePact returns for a file
// that is not a message pact it can read; errors.Is matches it.
var ErrMalformedPact = errors.New("malformed pact")

// Pact is a message pact as the Pact ecosystem writes it: a V3 message pact
// (top-level "messages") or a V4 pact whose "interactions" include
// asynchronous messages (type "Asynchronous/Messages"). Only message
// interactions are kept; HTTP and synchronous message interactions are
// counted in Skipped.
//
// Sources: Pact Specification V3 ("Introduces messages", "Matching Rules")
// and V4 ("Asynchronous/Messages", "Bodies", "Matching Rules"),
// github.com/pact-foundation/pact-specification branches version-3 and
// version-4.
type Pact struct {
	// Consumer and Provider are the pacticipant names of the file.
	Consumer string `json:"consumer"`
	Provider string `json:"provider"`
	// Spec is the specification version the file declares (or, when it
	// declares none, the one its shape implies): SpecV3 or SpecV4.
	Spec string `json:"spec"`
	// Interactions are the message interactions in file order.
	Interactions []Interaction `json:"interactions"`
	// Skipped counts interactions that are not asynchronous messages.
	Skipped int `json:"skipped,omitempty"`
}

// ProviderState is a state the provider must be in to produce a message.
type ProviderState struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
}

// Interaction is one message the consumer expects.
type Interaction struct {
	// Description is unique within a pact; Key is the V4 key ("" in V3).
	Description string `json:"description"`
	Key         string `json:"key,omitempty"`
	// ProviderStates are V3/V4 providerStates, or the V2-style single
	// providerState as one state without params.
	ProviderStates []ProviderState `json:"providerStates,omitempty"`
	// ContentType is the message's media type without parameters
	// ("application/json"), from the V4 body or the metadata; "" when
	// neither says.
	ContentType string `json:"contentType,omitempty"`
	// Contents is the example message decoded from JSON (numbers as
	// json.Number, objects as map[string]any), or nil when the contents
	// are not JSON (see Binary).
	Contents any `json:"contents,omitempty"`
	// Binary is true when the contents are not JSON (base64 or text of
	// another media type); they cannot be checked field by field.
	Binary bool `json:"binary,omitempty"`
	// Metadata is the message metadata (V3 "metaData"/"metadata", V4
	// "metadata").
	Metadata map[string]any `json:"metadata,omitempty"`
	// Rules are the body matching rules (category "body", or "content" as
	// some V4 writers spell it for messages).
	Rules []MatchingRule `json:"rules,omitempty"`
	// Pending marks a V4 pending interaction: its findings are reported
	// but never fail verification.
	Pending bool `json:"pending,omitempty"`
}

// ParsePact reads a pact file. Errors wrap ErrMalformedPact and say what is
// wrong in one line: invalid JSON, an unknown specification version, a
// message without description, a matching rule path or matcher that cannot
// be read. A pact with no message interaction is an error too: there is
// nothing to verify.
func ParsePact(data []byte) (*Pact, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, malformed("invalid JSON: %s", jsonErr(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed("invalid JSON: text after the pact object")
	}
	p := &Pact{
		Consumer: nameOf(doc["consumer"]),
		Provider: nameOf(doc["provider"]),
	}
	if p.Consumer == "" {
		return nil, malformed(`no consumer name ("consumer": {"name": …})`)
	}
	spec, err := specVersion(doc)
	if err != nil {
		return nil, err
	}
	msgs, hasMsgs := doc["messages"]
	inters, hasInters := doc["interactions"]
	if spec == "" {
		switch {
		case hasMsgs:
			spec = SpecV3
		case hasInters:
			spec = SpecV4
		default:
			return nil, malformed(`neither "messages" (V3) nor "interactions" (V4) found`)
		}
	}
	p.Spec = spec
	switch spec {
	case SpecV3:
		list, ok := msgs.([]any)
		if !ok {
			if hasInters && !hasMsgs {
				return nil, malformed(`a V3 pact has no "messages": it is an HTTP pact, not a message pact`)
			}
			return nil, malformed(`"messages" must be an array`)
		}
		for i, m := range list {
			in, err := parseV3Message(m)
			if err != nil {
				return nil, malformed("messages[%d]: %v", i, err)
			}
			p.Interactions = append(p.Interactions, in)
		}
	case SpecV4:
		list, ok := inters.([]any)
		if !ok {
			return nil, malformed(`"interactions" must be an array`)
		}
		for i, m := range list {
			obj, ok := m.(map[string]any)
			if !ok {
				return nil, malformed("interactions[%d]: not an object", i)
			}
			if t, _ := obj["type"].(string); t != "Asynchronous/Messages" {
				p.Skipped++
				continue
			}
			in, err := parseV4Message(obj)
			if err != nil {
				return nil, malformed("interactions[%d]: %v", i, err)
			}
			p.Interactions = append(p.Interactions, in)
		}
	}
	if len(p.Interactions) == 0 {
		return nil, malformed("no asynchronous message interaction to verify")
	}
	seen := map[string]bool{}
	for _, in := range p.Interactions {
		if seen[in.Description] {
			return nil, malformed("interaction %q appears twice (descriptions must be unique)", in.Description)
		}
		seen[in.Description] = true
	}
	return p, nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedPact, fmt.Sprintf(format, args...))
}

// jsonErr names the line and column of a JSON syntax error.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, b := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
			if b == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the document must be a JSON object"
	}
	return err.Error()
}

func nameOf(v any) string {
	if m, ok := v.(map[string]any); ok {
		s, _ := m["name"].(string)
		return s
	}
	return ""
}

// specVersion reads metadata.pactSpecification.version (V3/V4 writers),
// metadata["pact-specification"].version (early V3 writers) or
// metadata.pactSpecificationVersion (V2 writers). It returns "" when the
// file declares none.
func specVersion(doc map[string]any) (string, error) {
	md, _ := doc["metadata"].(map[string]any)
	var v string
	for _, k := range []string{"pactSpecification", "pact-specification"} {
		if m, ok := md[k].(map[string]any); ok {
			v, _ = m["version"].(string)
		}
	}
	if v == "" {
		v, _ = md["pactSpecificationVersion"].(string)
	}
	if v == "" {
		return "", nil
	}
	major, _, _ := strings.Cut(v, ".")
	switch major {
	case "3":
		return SpecV3, nil
	case "4":
		return SpecV4, nil
	case "1", "2":
		return "", malformed("pact specification %s has no message interactions (messages came with V3)", v)
	}
	return "", malformed("unknown pact specification version %q (this reads V3 message pacts and V4)", v)
}

func parseStates(obj map[string]any) ([]ProviderState, error) {
	if s, ok := obj["providerState"].(string); ok && s != "" {
		return []ProviderState{{Name: s}}, nil
	}
	raw, ok := obj["providerStates"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New(`"providerStates" must be an array`)
	}
	var out []ProviderState
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("providerStates[%d]: not an object", i)
		}
		name, _ := m["name"].(string)
		params, _ := m["params"].(map[string]any)
		out = append(out, ProviderState{Name: name, Params: params})
	}
	return out, nil
}

func parseV3Message(m any) (Interaction, error) {
	obj, ok := m.(map[string]any)
	if !ok {
		return Interaction{}, errors.New("not an object")
	}
	var in Interaction
	in.Description, _ = obj["description"].(string)
	if in.Description == "" {
		return in, errors.New("no description")
	}
	var err error
	if in.ProviderStates, err = parseStates(obj); err != nil {
		return in, err
	}
	md, _ := obj["metaData"].(map[string]any)
	if md == nil {
		md, _ = obj["metadata"].(map[string]any)
	}
	in.Metadata = md
	in.ContentType = mediaType(metaContentType(md))
	if err := in.setContents(obj["contents"], false, ""); err != nil {
		return in, err
	}
	if in.Rules, err = parseRules(obj["matchingRules"]); err != nil {
		return in, err
	}
	return in, nil
}

func parseV4Message(obj map[string]any) (Interaction, error) {
	var in Interaction
	in.Description, _ = obj["description"].(string)
	if in.Description == "" {
		return in, errors.New("no description")
	}
	in.Key, _ = obj["key"].(string)
	in.Pending, _ = obj["pending"].(bool)
	var err error
	if in.ProviderStates, err = parseStates(obj); err != nil {
		return in, err
	}
	in.Metadata, _ = obj["metadata"].(map[string]any)
	in.ContentType = mediaType(metaContentType(in.Metadata))
	body, ok := obj["contents"].(map[string]any)
	switch {
	case obj["contents"] == nil:
		// "If there is no body in the pact file, then this indicates
		// that the body contents are not important" (V3, Body is absent).
	case !ok:
		return in, errors.New(`"contents" must be a body object with "content" (V4 Bodies)`)
	default:
		if ct, _ := body["contentType"].(string); ct != "" {
			in.ContentType = mediaType(ct)
		}
		enc := ""
		switch e := body["encoded"].(type) {
		case string:
			enc = strings.ToLower(e)
		case bool, nil:
		default:
			return in, errors.New(`"contents.encoded" must be false or a string`)
		}
		if err := in.setContents(body["content"], true, enc); err != nil {
			return in, err
		}
	}
	if in.Rules, err = parseRules(obj["matchingRules"]); err != nil {
		return in, err
	}
	return in, nil
}

// setContents stores the example message. JSON contents are kept as values;
// JSON given as a string (V4 encoded "JSON", or a V3 string whose content
// type is JSON) is parsed; base64 contents of a JSON type are decoded and
// parsed; anything else is binary.
func (in *Interaction) setContents(c any, v4 bool, encoded string) error {
	isJSON := in.ContentType == "" || isJSONType(in.ContentType)
	switch encoded {
	case "", "false":
	case "json":
		s, ok := c.(string)
		if !ok {
			return errors.New(`contents encoded as "JSON" must be a string`)
		}
		return in.parseJSONContents([]byte(s))
	case "base64":
		s, ok := c.(string)
		if !ok {
			return errors.New(`contents encoded as "base64" must be a string`)
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("contents: invalid base64: %v", err)
		}
		if isJSON && in.ContentType != "" {
			return in.parseJSONContents(raw)
		}
		in.Binary = true
		return nil
	default:
		return fmt.Errorf("contents: unknown encoding %q (want false, \"JSON\" or \"base64\")", encoded)
	}
	if s, ok := c.(string); ok && isJSON {
		// V3 writers (pact-jvm) store JSON message contents as a string.
		if err := in.parseJSONContents([]byte(s)); err == nil {
			return nil
		}
		if in.ContentType != "" {
			return fmt.Errorf("contents of type %s are not valid JSON", in.ContentType)
		}
	}
	if !isJSON {
		in.Binary = true
		return nil
	}
	in.Contents = c
	return nil
}

func (in *Interaction) parseJSONContents(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("contents are not valid JSON: %s", jsonErr(b, err))
	}
	in.Contents = v
	return nil
}

func metaContentType(md map[string]any) string {
	for _, k := range []string{"contentType", "content-type", "Content-Type", "contentTypeHint"} {
		if s, ok := md[k].(string); ok && s != "" && k != "contentTypeHint" {
			return s
		}
	}
	return ""
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// isJSONType is true for application/json and the +json suffix types.
func isJSONType(mt string) bool {
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

// sortedKeys returns m's keys in order, so every walk is deterministic.
func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// numberKind tells an integer JSON number from one with a fraction or
// exponent ("has decimal places", V3 decimal matcher).
func isIntegerText(n json.Number) bool {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// A big integer is still an integer.
		for _, r := range strings.TrimPrefix(s, "-") {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}
