package registryserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// ordersCatalog copies examples/orders into a temporary directory.
func ordersCatalog(t testing.TB) string {
	t.Helper()
	return srtest.CopyCatalog(t, filepath.Join("..", "..", "examples", "orders"))
}

// startServer serves dir with evtool's server on an httptest server.
func startServer(t testing.TB, opts ServerOptions) (*Server, string) {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

func newClient(t testing.TB, o schemaregistry.ClientOptions) *schemaregistry.Client {
	t.Helper()
	c, err := schemaregistry.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

func srStatus(err error) int {
	if re, ok := err.(*sr.ResponseError); ok {
		return re.StatusCode
	}
	return 0
}

// doHandler calls the server's handler directly.
func doHandler(t testing.TB, s *Server, method, target, body string) apiResp {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.Header.Set("Content-Type", wire.ContentType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	out := apiResp{status: w.Code, contentType: w.Header().Get("Content-Type"), body: w.Body.String()}
	var e struct {
		Code int `json:"error_code"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	out.code = e.Code
	return out
}

// formatCatalog copies ../testdata/formats/<name> (an Avro or Protobuf
// catalog whose versions use shared files, the client's tests' too) into a
// temporary directory.
func formatCatalog(t testing.TB, name string) string {
	t.Helper()
	return srtest.CopyCatalog(t, filepath.Join("..", "testdata", "formats", name))
}
