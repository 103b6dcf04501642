package replay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/schemaregistry/registryserver"
)

// TestFormatRecordsFramedWithServedIDs: after `evtool registry serve` gave
// ids to the Avro and Protobuf versions in git and registered a v3 of
// each, replay frames every event's data under the id serve serves for
// its version.
func TestFormatRecordsFramedWithServedIDs(t *testing.T) {
	dir := formatsDir(t, false)
	srv, err := registryserver.NewServer(registryserver.ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cl, err := sr.NewClient(sr.URLs(hs.URL), sr.HTTPClient(&http.Client{Timeout: 60 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v2 := func(typ, file string) string {
		b, err := os.ReadFile(filepath.Join(dir, "schemas", typ, file))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	avroV3 := strings.Replace(v2(avroType, "v2.avsc"), `"default": "EUR"}`, `"default": "EUR"}, {"name": "channel", "type": "string", "default": "web"}`, 1)
	protoV3 := strings.Replace(v2(protoType, "v2.proto"), "string note = 6;", "string note = 6;\n  string channel = 7;", 1)
	for _, reg := range []struct {
		subject, text string
		typ           sr.SchemaType
	}{{avroType, avroV3, sr.TypeAvro}, {protoType, protoV3, sr.TypeProtobuf}} {
		if ss, err := cl.CreateSchema(ctx, reg.subject, sr.Schema{Schema: reg.text, Type: reg.typ}); err != nil || ss.Version != 3 {
			t.Fatalf("register %s v3: %+v %v", reg.subject, ss, err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	file := formatsFile(t, cat)
	extra := fmt.Sprintf(`{"specversion":"1.0","id":"a4","source":"/test","type":%q,"dataschema":%q,"datacontenttype":"application/json","data":{"paymentId":"p-4","amount":"\u0001","status":"SETTLED","note":null,"attempts":1,"currency":"EUR","channel":"app"}}
{"specversion":"1.0","id":"p4","source":"/test","type":%q,"dataschema":%q,"datacontenttype":"application/json","data":{"sku":"sku-4","delta":"1","channel":"app"}}
`, avroType, cat.DataSchema(avroType, 3), protoType, cat.DataSchema(protoType, 3))
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h := formatsHarness(t, dir, "{file: "+file+"}", "")
	v := &envelope.Validator{Catalog: cat}
	seen := map[string]bool{}
	for i, raw := range validatedEvents(t, h) {
		c := h.convert(ctx, raw, "t")
		if c.err != nil {
			t.Fatal(c.err)
		}
		d, ver, _, err := v.CheckRecord(c.rec)
		if err != nil || ver == nil {
			t.Fatalf("event %d: %v", i, err)
		}
		served, err := cl.SchemaByVersion(ctx, ver.Type, ver.Number)
		if err != nil {
			t.Fatal(err)
		}
		_, id, framed := envelope.DataFrame(ver.Compiled, catalog.FramingConfluent, d.RawData)
		if !framed || id != uint32(served.ID) {
			t.Errorf("event %d (%s v%d): framed %v under id %d, serve serves it as id %d", i, ver.Type, ver.Number, framed, id, served.ID)
		}
		seen[fmt.Sprintf("%s v%d", ver.Type, ver.Number)] = true
	}
	if len(seen) != 6 {
		t.Errorf("versions replayed: %v, want v1 to v3 of both types", seen)
	}
}
