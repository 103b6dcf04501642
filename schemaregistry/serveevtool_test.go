package schemaregistry_test

import (
	"net/http/httptest"
	"testing"

	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/registryserver"
)

// The client's tests run against evtool's own registry server as well as
// srfake; the server's package imports the client's, so it is started
// from here.
func init() {
	schemaregistry.EvtoolRegistry = func(t testing.TB, dir string) string {
		t.Helper()
		s, err := registryserver.NewServer(registryserver.ServerOptions{Dir: dir, AllowConfigWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		return hs.URL
	}
}
