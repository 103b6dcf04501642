package schemaregistry

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// ordersCatalog copies examples/orders into a temporary directory.
func ordersCatalog(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "orders")
	srtest.CopyDir(t, filepath.Join("..", "examples", "orders"), dir)
	return dir
}

// evtoolRegistry serves dir with evtool's own registry server (config
// writes allowed) and returns its URL. The server's package imports this
// one, so only an external test package can start it: serveevtool_test.go
// sets EvtoolRegistry.
func evtoolRegistry(t testing.TB, dir string) string {
	t.Helper()
	if EvtoolRegistry == nil {
		t.Fatal("EvtoolRegistry is not set")
	}
	return EvtoolRegistry(t, dir)
}

// EvtoolRegistry is set by the external test package, before any test runs.
var EvtoolRegistry func(t testing.TB, dir string) string

func newClient(t testing.TB, o ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

const placed = "com.example.order.placed"
