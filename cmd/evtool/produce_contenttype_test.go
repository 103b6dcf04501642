package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestProduceContentType: an event without datacontenttype is JSON in the
// JSON format produce reads; in binary mode its record says so with
// content-type application/json (the CloudEvents JS SDK, which has no
// catalog, took the value for opaque bytes without it), and a given
// datacontenttype is kept. Structured mode keeps the event as it is.
func TestProduceContentType(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, plainOrdersCatalog)
	brokers := startTopics(t, "binary", "structured")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := `{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + framedJSONType + `","dataschema":"` + orderSchemaURI + `","data":{"orderId":"A-1"}}
{"specversion":"1.0","id":"o-2","source":"/shop","type":"` + framedJSONType + `","datacontenttype":"application/json; charset=utf-8","dataschema":"` + orderSchemaURI + `","data":{"orderId":"A-2"}}
`
	for _, tc := range []struct {
		mode string
		want map[string]string // ce id -> content-type header ("" none)
	}{
		{"binary", map[string]string{"o-1": "application/json", "o-2": "application/json; charset=utf-8"}},
		{"structured", map[string]string{"o-1": "application/cloudevents+json", "o-2": "application/cloudevents+json"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(ctx, []string{"produce", "--dir", dir, "--brokers", brokers, "--topic", tc.mode, "--mode", tc.mode}, strings.NewReader(events), &stdout, &stderr); code != 0 {
				t.Fatalf("produce: exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			stdout.Reset()
			if code := run(ctx, []string{"consume", "--dir", dir, "--brokers", brokers, "--topic", tc.mode}, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("consume: exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			got := consumedLines(t, stdout.String())
			for id, want := range tc.want {
				c, ok := got[id]
				if !ok {
					t.Fatalf("no record of %s:\n%s", id, stdout.String())
				}
				ct := ""
				for _, h := range c.Headers {
					if h.Key == "content-type" && h.Value != nil {
						ct = *h.Value
					}
				}
				if ct != want {
					t.Errorf("%s: content-type %q, want %q", id, ct, want)
				}
				if tc.mode == "structured" && id == "o-1" && strings.Contains(string(c.Event), "datacontenttype") {
					t.Errorf("structured mode added a datacontenttype: %s", c.Event)
				}
			}
		})
	}
}
