package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAllItems drains a Reader and renders each result as a line:
// "L:C #I raw" for events, "L:C #I error: msg" for error items, and a final
// "end: err" for the error that ended reading.
func readAllItems(t testing.TB, r *Reader) []string {
	t.Helper()
	var out []string
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("reader does not end")
		}
		it, err := r.Next()
		if err != nil {
			if err == io.EOF {
				out = append(out, "end")
			} else {
				out = append(out, "end: "+err.Error())
			}
			// Final errors repeat.
			if _, err2 := r.Next(); err2 != err {
				t.Errorf("Next after %v returned %v", err, err2)
			}
			return out
		}
		if it.Err != nil {
			if it.Raw != nil {
				t.Errorf("error item with Raw %q", it.Raw)
			}
			out = append(out, fmt.Sprintf("%d:%d #%d error: %v", it.Line, it.Column, it.Index, it.Err))
			continue
		}
		out = append(out, fmt.Sprintf("%d:%d #%d %s", it.Line, it.Column, it.Index, it.Raw))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"single", `{"a":1}`, 0, []string{"1:1 #-1 {\"a\":1}", "end"}},
		{"single pretty", "\n  {\n    \"a\": [1, 2],\n    \"b\": {\"c\": \"}]\\\"\"}\n  }\n", 0,
			[]string{"2:3 #-1 {\n    \"a\": [1, 2],\n    \"b\": {\"c\": \"}]\\\"\"}\n  }", "end"}},
		{"jsonl", "{\"a\":1}\n{\"a\":2}\r\n\n{\"a\":3}", 0,
			[]string{"1:1 #-1 {\"a\":1}", "2:1 #-1 {\"a\":2}", "4:1 #-1 {\"a\":3}", "end"}},
		{"concatenated", `{"a":1}{"a":2} {"a":3}`, 0,
			[]string{"1:1 #-1 {\"a\":1}", "1:8 #-1 {\"a\":2}", "1:16 #-1 {\"a\":3}", "end"}},
		{"batch", "[\n  {\"a\":1},\n  {\"a\":2}\n]\n", 0,
			[]string{"2:3 #0 {\"a\":1}", "3:3 #1 {\"a\":2}", "end"}},
		{"batch one line", `[{"a":1},{"a":[2]}]`, 0,
			[]string{"1:2 #0 {\"a\":1}", "1:10 #1 {\"a\":[2]}", "end"}},
		{"two batches", `[{"a":1}] [{"a":2}]`, 0,
			[]string{"1:2 #0 {\"a\":1}", "1:12 #0 {\"a\":2}", "end"}},
		{"empty batch", `[]`, 0, []string{"end"}},
		{"scalars pass through", `1 "x" true [2, null]`, 0,
			[]string{"1:1 #-1 1", "1:3 #-1 \"x\"", "1:7 #-1 true", "1:13 #0 2", "1:16 #1 null", "end"}},
		{"strings with brackets", `{"a":"[{"}{"b":"\\"}`, 0,
			[]string{"1:1 #-1 {\"a\":\"[{\"}", "1:11 #-1 {\"b\":\"\\\\\"}", "end"}},
		{"byte order mark", "\xef\xbb\xbf{\"a\":1}", 0, []string{"1:1 #-1 {\"a\":1}", "end"}},

		{"empty", "", 0, []string{"end: empty input: no events"}},
		{"blank", " \n\t\r\n", 0, []string{"end: empty input: no events"}},
		{"only bom", "\xef\xbb\xbf", 0, []string{"end: empty input: no events"}},

		{"too large", `{"a":"0123456789"}` + "\n" + `{"b":1}`, 10,
			[]string{"1:1 #-1 error: line 1: event exceeds 10 bytes", "2:1 #-1 {\"b\":1}", "end"}},
		{"exactly the limit", `{"a":"12"}`, 10, []string{"1:1 #-1 {\"a\":\"12\"}", "end"}},
		{"too large in batch", `[{"a":"0123456789"},{"b":1}]`, 10,
			[]string{"1:2 #0 error: line 1: event exceeds 10 bytes", "1:21 #1 {\"b\":1}", "end"}},

		{"stray bracket", "]\n{\"a\":1}", 0,
			[]string{"1:1 #-1 error: line 1: unexpected ']' between events: want an event (a JSON object)", "2:1 #-1 {\"a\":1}", "end"}},
		{"stray brace after event", "{\"a\":1}}\n{\"a\":2}", 0,
			[]string{"1:1 #-1 {\"a\":1}", "1:8 #-1 error: line 1: unexpected '}' between events: want an event (a JSON object)", "2:1 #-1 {\"a\":2}", "end"}},
		{"unterminated string", "{\"a\":\"x\n{\"a\":2}\n", 0,
			[]string{"1:1 #-1 error: line 1: unterminated string: a JSON string cannot span lines", "2:1 #-1 {\"a\":2}", "end"}},
		{"unterminated string at end", `{"a":"x`, 0,
			[]string{"1:1 #-1 error: line 1: unexpected end of input in a string: the event starting at line 1 is incomplete", "end"}},
		{"truncated jsonl line", "{\"a\":1,\n{\"a\":2}\n{\"a\":3}", 0,
			[]string{"1:1 #-1 error: line 1: the event starting at line 1 ends unfinished at the end of line 1 (line 2 starts the next event): every event must be complete", "2:1 #-1 {\"a\":2}", "3:1 #-1 {\"a\":3}", "end"}},
		// Cut after a member name's colon: the next line is not its value.
		{"jsonl line cut after a colon", "{\"id\":\n{\"a\":2,\"x\":bad}\n{\"a\":3}", 0,
			[]string{"1:1 #-1 error: line 1: the event starting at line 1 ends unfinished at the end of line 1 (line 2 starts the next event): every event must be complete", "2:1 #-1 {\"a\":2,\"x\":bad}", "3:1 #-1 {\"a\":3}", "end"}},
		// A pretty-printed event indents its nested objects: still one event.
		{"pretty-printed event", "{\n  \"a\":\n  {\"b\": 1},\n  \"c\": [\n    {\"d\": 2}\n  ]\n}\n{\"a\":3}", 0,
			[]string{"1:1 #-1 {\n  \"a\":\n  {\"b\": 1},\n  \"c\": [\n    {\"d\": 2}\n  ]\n}", "8:1 #-1 {\"a\":3}", "end"}},
		// Pretty-printed without indentation: the brace alone on the
		// first line says a nested object at column 1 is still this event's.
		{"unindented pretty-printed event", "{\n\"a\":\n{\n\"b\":1\n}\n}\n{\"a\":3}", 0,
			[]string{"1:1 #-1 {\n\"a\":\n{\n\"b\":1\n}\n}", "7:1 #-1 {\"a\":3}", "end"}},
		{"unindented pretty-printed event, CRLF", "{\r\n\"a\":\r\n{\"b\":1}\r\n}\r\n", 0,
			[]string{"1:1 #-1 {\r\n\"a\":\r\n{\"b\":1}\r\n}", "end"}},
		{"jsonl line cut after a colon, after a BOM", "\ufeff{\"id\":\n{\"a\":2}\n", 0,
			[]string{"1:1 #-1 error: line 1: the event starting at line 1 ends unfinished at the end of line 1 (line 2 starts the next event): every event must be complete", "2:1 #-1 {\"a\":2}", "end"}},
		{"jsonl line cut after a colon, CRLF", "{\"id\":\r\n{\"a\":2}\r\n", 0,
			[]string{"1:1 #-1 error: line 1: the event starting at line 1 ends unfinished at the end of line 1 (line 2 starts the next event): every event must be complete", "2:1 #-1 {\"a\":2}", "end"}},
		{"truncated at end", "{\"a\":1}\n{\"a\":", 0,
			[]string{"1:1 #-1 {\"a\":1}", "2:1 #-1 error: line 2: unexpected end of input: the event starting at line 2 is incomplete", "end"}},
		{"mismatched bracket", "{\"a\":[1}\n{\"a\":2}", 0,
			[]string{"1:1 #-1 error: line 1: unexpected '}': the array opened earlier is not closed", "2:1 #-1 {\"a\":2}", "end"}},
		{"missing colon", "{\"a\" 1}\n{\"a\":2}", 0,
			[]string{"1:1 #-1 error: line 1: unexpected '1': want ':' after the member name", "2:1 #-1 {\"a\":2}", "end"}},
		{"missing comma", "{\"a\":1 \"b\":2}\n{\"a\":2}", 0,
			[]string{"1:1 #-1 error: line 1: unexpected '\"': want ',' or '}' after an object member", "2:1 #-1 {\"a\":2}", "end"}},
		{"broken pretty event reports once", "{\n \"a\": 1\n \"b\": 2\n}\n{\"c\":3}\n", 0,
			[]string{"1:1 #-1 error: line 3: unexpected '\"': want ',' or '}' after an object member (in the event starting at line 1)", "5:1 #-1 {\"c\":3}", "end"}},

		{"batch not closed", `[{"a":1}`, 0, []string{"1:2 #0 {\"a\":1}", "end: line 1: unexpected end of input: the array starting at line 1 is not closed"}},
		{"batch trailing comma", `[{"a":1},]`, 0, []string{"1:2 #0 {\"a\":1}", "end: line 1: trailing ',' before ']' in the array starting at line 1"}},
		{"batch missing comma", `[{"a":1} {"a":2}]`, 0, []string{"1:2 #0 {\"a\":1}", "end: line 1: unexpected '{' after an event in the array starting at line 1: want ',' or ']'"}},
		{"batch malformed element", "[\n{\"a\":1},\n{\"a\" 2}\n]", 0, []string{"2:1 #0 {\"a\":1}", "end: line 3: unexpected '2': want ':' after the member name in the array starting at line 1"}},
		{"batch leading comma", `[,{"a":1}]`, 0, []string{"end: line 1: unexpected ',' in the array starting at line 1: want an event"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAllItems(t, NewReader(strings.NewReader(tt.in), tt.max))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			// The result does not depend on how the input is chunked.
			got1 := readAllItems(t, NewReader(iotest.OneByteReader(strings.NewReader(tt.in)), tt.max))
			if diff := cmp.Diff(tt.want, got1); diff != "" {
				t.Errorf("one byte at a time (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderDeepNesting(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	got := readAllItems(t, NewReader(strings.NewReader(deep+"\n"+`{"b":1}`), 0))
	want := []string{"1:1 #-1 error: line 1: event is nested deeper than 1000 levels (at line 1)", "2:1 #-1 {\"b\":1}", "end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	// In a batch too, and the batch goes on.
	got = readAllItems(t, NewReader(strings.NewReader("["+deep+`,{"b":1}]`), 0))
	want = []string{"1:2 #0 error: line 1: event is nested deeper than 1000 levels (at line 1)", "1:60004 #1 {\"b\":1}", "end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batch items (-want +got):\n%s", diff)
	}
	// Exactly MaxDepth is fine.
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	got = readAllItems(t, NewReader(strings.NewReader(ok), 0))
	if len(got) != 2 || strings.Contains(got[0], "error") {
		t.Errorf("depth %d: %v", MaxDepth, got[:1])
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewReader(io.MultiReader(strings.NewReader(`{"a":1}{"a":`), iotest.ErrReader(boom)), 0)
	it, err := r.Next()
	if err != nil || string(it.Raw) != `{"a":1}` {
		t.Fatalf("first: %q %v", it.Raw, err)
	}
	if _, err = r.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

// TestReaderFeedsDecodeJSON: every item of a JSONL stream decodes.
func TestReaderFeedsDecodeJSON(t *testing.T) {
	var in bytes.Buffer
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&in, `{"specversion":"1.0","id":"%d","source":"/s","type":"t","data":{"n":%d}}`+"\n", i, i)
	}
	r := NewReader(&in, 0)
	n := 0
	for {
		it, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil || it.Err != nil {
			t.Fatal(err, it.Err)
		}
		d, fs := DecodeJSON(it.Raw)
		if len(fs) != 0 || d.Event.ID() != fmt.Sprint(n) || it.Line != n+1 {
			t.Fatalf("item %d: %v %v line %d", n, d, fs, it.Line)
		}
		n++
	}
	if n != 100 {
		t.Errorf("read %d events, want 100", n)
	}
}

// genReader produces n bytes of a pattern without holding them.
type genReader struct {
	prefix, fill, suffix string
	n                    int64 // bytes of fill
	state                int
	sent                 int64
}

func (g *genReader) Read(p []byte) (int, error) {
	switch g.state {
	case 0:
		g.state = 1
		return copy(p, g.prefix), nil
	case 1:
		if g.sent >= g.n {
			g.state = 2
			return g.Read(p)
		}
		k := 0
		for k < len(p) && g.sent < g.n {
			p[k] = g.fill[g.sent%int64(len(g.fill))]
			k++
			g.sent++
		}
		return k, nil
	case 2:
		g.state = 3
		return copy(p, g.suffix), nil
	}
	return 0, io.EOF
}

// TestReaderConstantMemory streams a 64 MiB event with a 1 KiB limit and
// checks that the reader allocates nowhere near the event's size.
func TestReaderConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 64 MiB")
	}
	const size = 64 << 20
	g := &genReader{prefix: `{"a":"`, fill: "abcdefgh", n: size, suffix: "\"}\n{\"b\":1}\n"}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := readAllItems(t, NewReader(g, 1024))
	runtime.ReadMemStats(&after)
	want := []string{"1:1 #-1 error: line 1: event exceeds 1024 bytes", "2:1 #-1 {\"b\":1}", "end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("reading a %d-byte event allocated %d bytes; want constant memory", size, alloc)
	}
}

// TestReaderBatchMatchesEncodingJSON: for a valid JSON array the items are
// exactly the elements encoding/json sees.
func TestReaderBatchMatchesEncodingJSON(t *testing.T) {
	in := `[ {"a":"x,y]"} ,{"b":[1,{"c":"\"]"}]},"s",12,null , [[]] ]`
	var want []json.RawMessage
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	r := NewReader(strings.NewReader(in), 0)
	for i := 0; ; i++ {
		it, err := r.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Errorf("got %d items, want %d", i, len(want))
			}
			return
		}
		if err != nil || it.Err != nil {
			t.Fatal(err, it.Err)
		}
		if string(it.Raw) != string(want[i]) || it.Index != i {
			t.Errorf("item %d = %q (index %d), want %q", i, it.Raw, it.Index, want[i])
		}
	}
}

// A JSONL line cut short must not swallow the lines after it.
func TestReaderJSONLCutShort(t *testing.T) {
	in := "{\"a\":1}\n{\"a\": \n{\"a\":3}\n{\"a\": [1,\n{\"a\":5}\n"
	r := NewReader(strings.NewReader(in), 0)
	var got []string
	for {
		it, err := r.Next()
		if err != nil {
			break
		}
		if it.Err != nil {
			got = append(got, fmt.Sprintf("err@%d", it.Line))
		} else {
			got = append(got, fmt.Sprintf("%s@%d", it.Raw, it.Line))
		}
	}
	want := []string{`{"a":1}@1`, "err@2", `{"a":3}@3`, "err@4", `{"a":5}@5`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
}
