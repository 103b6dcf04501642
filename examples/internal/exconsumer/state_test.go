package exconsumer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// GET /state streamed by WriteState: whole when it succeeds; a 500 when
// it fails before writing; cut (the client sees no whole body) when it
// fails after writing, so a state half written never passes for a state.
func TestServeState(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	for _, tc := range []struct {
		name     string
		write    func(context.Context, io.Writer) error
		status   int
		body     string
		readFail bool
	}{
		{"whole", func(_ context.Context, w io.Writer) error { _, err := io.WriteString(w, `{"a":1}`); return err }, 200, `{"a":1}`, false},
		{"fails first", func(context.Context, io.Writer) error { return errors.New("database locked") }, 500, "database locked\n", false},
		{"fails after writing", func(_ context.Context, w io.Writer) error {
			if _, err := io.WriteString(w, `{"a":"`+big); err != nil {
				return err
			}
			return errors.New("disk I/O error")
		}, 200, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serveState(w, r, tc.write) }))
			defer srv.Close()
			resp, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || (err != nil) != tc.readFail || (!tc.readFail && string(b) != tc.body) {
				t.Fatalf("status %d, body %.40q, read error %v; want %d, %q, read error %v", resp.StatusCode, b, err, tc.status, tc.body, tc.readFail)
			}
		})
	}
}
