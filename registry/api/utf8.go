package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/charter-dev/charter/registry/srerr"
)

// checkUTF8 refuses a request body that is not UTF-8. encoding/json would
// replace each invalid byte with U+FFFD and the registry would store text
// the client never sent (RFC 8259 §8.1: JSON text is UTF-8). The error
// names the byte offset and the member holding it; a schema request's is
// 42201, any other 422.
func checkUTF8(body []byte, schemaReq bool) error {
	if utf8.Valid(body) {
		return nil
	}
	off := invalidUTF8Offset(body)
	where := ""
	if name := memberAt(body, off); name != "" {
		where = " in " + name
	}
	if schemaReq {
		return srerr.New(srerr.ErrInvalidSchema, "Invalid schema: the request body is not UTF-8: byte 0x%02X at offset %d%s", body[off], off, where)
	}
	return srerr.New(srerr.ErrUnprocessableEntity, "The request body is not UTF-8: byte 0x%02X at offset %d%s", body[off], off, where)
}

// invalidUTF8Offset returns the offset of the first byte of b that does
// not start a valid UTF-8 sequence.
func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// memberAt names the JSON member whose key or value holds byte off of
// body ("member \"tags.\\\".a\\\"\"" for a tag of glob .a), or "" when it
// cannot tell (off outside any member, or malformed JSON before it).
func memberAt(body []byte, off int) string {
	type frame struct {
		object    bool
		key       string
		expectKey bool
	}
	var stack []frame
	path := func(extra string) string {
		var keys []string
		for _, f := range stack {
			if f.object && f.key != "" {
				keys = append(keys, f.key)
			}
		}
		if extra != "" {
			keys = append(keys, extra)
		}
		if len(keys) == 0 {
			return ""
		}
		b, _ := json.Marshal(strings.Join(keys, "."))
		return "member " + string(b)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		end := dec.InputOffset()
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].expectKey
		if off >= int(start) && off < int(end) {
			if isKey {
				return path("") + " (in a key)"
			}
			return path("")
		}
		switch {
		case isKey:
			if s, ok := tok.(string); ok {
				stack[top].key, stack[top].expectKey = s, false
			}
			continue
		case tok == json.Delim('{'):
			stack = append(stack, frame{object: true, expectKey: true})
			continue
		case tok == json.Delim('['):
			stack = append(stack, frame{})
			continue
		case tok == json.Delim('}') || tok == json.Delim(']'):
			stack = stack[:top]
			top--
		}
		// A value ended: the enclosing object wants its next key.
		if top >= 0 && stack[top].object {
			stack[top].key, stack[top].expectKey = "", true
		}
	}
}
