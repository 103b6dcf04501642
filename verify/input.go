package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/evtool/evtool/internal/jsonstrict"
)

// Request is one workload request: sent to http://${EVTOOL_ADDR}Path.
type Request struct {
	Line    int
	Method  string
	Path    string
	Headers map[string]string
	// Body is the JSON body as written (nil: none).
	Body json.RawMessage
}

// IdempotencyKey is the request's Idempotency-Key header ("" when none).
func (r Request) IdempotencyKey() string {
	for k, v := range r.Headers {
		if strings.EqualFold(k, "Idempotency-Key") {
			return v
		}
	}
	return ""
}

// MaxRequestLine bounds one line of a requests file.
const MaxRequestLine = 1 << 20

// ParseRequests reads a requests file: JSONL, one request a line
// ({"method", "path", "headers", "body"}); blank lines are skipped. Errors
// name the file and line.
func ParseRequests(name string, r io.Reader) ([]Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxRequestLine)
	var out []Request
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
		}
		var y struct {
			Method  *string           `json:"method"`
			Path    *string           `json:"path"`
			Headers map[string]string `json:"headers"`
			Body    json.RawMessage   `json:"body"`
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&y); err != nil {
			return nil, fail("not a request (want {\"method\": \"POST\", \"path\": \"/...\", \"headers\": {...}, \"body\": {...}}): %v", err)
		}
		if dec.More() {
			return nil, fail("one request per line: text follows the JSON object")
		}
		req := Request{Line: line, Method: http.MethodPost, Headers: y.Headers}
		if y.Method != nil {
			req.Method = strings.ToUpper(*y.Method)
			if !validMethod(req.Method) {
				return nil, fail("/method: %q is not an HTTP method", *y.Method)
			}
		}
		if y.Path == nil || !strings.HasPrefix(*y.Path, "/") {
			return nil, fail("/path: want a path starting with /, e.g. \"/orders\"")
		}
		req.Path = *y.Path
		if strings.ContainsFunc(req.Path, isControlOrSpace) || strings.Contains(req.Path, "//") {
			return nil, fail("/path: %q is not a URL path", req.Path)
		}
		for k, v := range y.Headers {
			// net/http refuses to send what is no token or holds a
			// control character: every retry would fail the same way.
			if k == "" || strings.ContainsFunc(k, func(r rune) bool { return !isTokenChar(r) }) ||
				strings.ContainsFunc(v, func(r rune) bool { return r != '\t' && (r < ' ' || r == 0x7f) }) {
				return nil, fail("/headers: %q is not a header name and value", k)
			}
		}
		if len(y.Body) > 0 && !bytes.Equal(y.Body, []byte("null")) {
			req.Body = y.Body
		}
		out = append(out, req)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, MaxRequestLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no request: a requests file holds one JSON request a line", name)
	}
	return out, nil
}

func isControlOrSpace(r rune) bool { return r <= ' ' || r == 0x7f }

// isTokenChar reports whether r may appear in an HTTP header name (RFC 9110
// token).
func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

func validMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// Fact is one thing the producer committed that must have an event.
type Fact struct {
	ID   string   `json:"id"`
	Type string   `json:"type"`
	Key  string   `json:"key"`
	Seq  *float64 `json:"seq,omitempty"`
}

// ParseFacts reads a producer's state: a JSON array of facts, each with an
// id and a type; key and seq are optional. source names the state in
// errors, which give the JSON pointer of the bad member.
func ParseFacts(source string, data []byte) ([]Fact, error) {
	// jsonstrict first: its errors carry a line and column, and it
	// refuses a key given twice, which encoding/json resolves silently.
	if _, err := jsonstrict.Decode(data); err != nil {
		return nil, fmt.Errorf("state from %s: want a JSON array of facts: %v", source, err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("state from %s: want a JSON array of facts [{\"id\", \"type\", \"key\", \"seq\"}, ...]: %v", source, err)
	}
	out := make([]Fact, 0, len(raw))
	for i, r := range raw {
		var f Fact
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("state from %s: /%d: not a fact {\"id\", \"type\", \"key\", \"seq\"}: %v", source, i, err)
		}
		if f.ID == "" {
			return nil, fmt.Errorf("state from %s: /%d/id: a fact needs the id of its event", source, i)
		}
		if f.Type == "" {
			return nil, fmt.Errorf("state from %s: /%d/type: a fact needs the type of its event", source, i)
		}
		out = append(out, f)
	}
	return out, nil
}
