package registryserver

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestServedIDsReachCatalog: the ids serve gives Avro and Protobuf
// versions, those already in git at startup and one a client registers,
// are the ids catalog.LoadSchemaIDs gives the catalog's versions, which
// framing, validate --topic, replay and the example consumers use.
func TestServedIDsReachCatalog(t *testing.T) {
	cases := []struct {
		name, subject, registered string
		refs                      []sr.SchemaReference
		schemaType                sr.SchemaType
	}{
		{
			name: "avro", subject: "com.example.payment.made", schemaType: sr.TypeAvro,
			refs: []sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1},
				{Name: "com.example.common.Fee", Subject: "com.example.common.Fee", Version: 1}},
			registered: compatibleAvroV3,
		},
		{
			name: "proto", subject: "com.example.stock.moved", schemaType: sr.TypeProtobuf,
			refs:       []sr.SchemaReference{{Name: "common/place.proto", Subject: "common/place.proto", Version: 1}},
			registered: compatibleProtoV3,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := formatCatalog(t, tc.name)
			_, srURL := startServer(t, ServerOptions{Dir: dir})
			cl := srtest.SRClient(t, srURL)
			ss, err := cl.CreateSchema(ctx, tc.subject, sr.Schema{Schema: tc.registered, Type: tc.schemaType, References: tc.refs})
			if err != nil || ss.Version != 3 {
				t.Fatalf("register: %+v %v", ss, err)
			}
			cat := srtest.LoadCat(t, dir)
			ids, err := catalog.LoadSchemaIDs(cat)
			if err != nil {
				t.Fatal(err)
			}
			typ := cat.Lookup(tc.subject)
			if typ == nil || len(typ.Versions) != 3 {
				t.Fatalf("catalog type %s: %+v", tc.subject, typ)
			}
			for _, v := range typ.Versions {
				served, err := cl.SchemaByVersion(ctx, tc.subject, v.Number)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := ids.Of(v)
				if !ok || got != uint32(served.ID) {
					t.Errorf("v%d: LoadSchemaIDs gives id %d (known %v), serve serves id %d", v.Number, got, ok, served.ID)
				}
				if ok && !strings.Contains(fmtVersions(ids.Versions(got)), v.File) {
					t.Errorf("v%d: id %d maps back to %s", v.Number, got, fmtVersions(ids.Versions(got)))
				}
			}
		})
	}
}

// compatibleAvroV3 and compatibleProtoV3 are v3s of the "avro" and
// "proto" test catalogs that serve accepts (a field added with a default).
const (
	compatibleAvroV3 = `{"type":"record","name":"PaymentMade","namespace":"com.example.payment","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":"com.example.common.Money"},
  {"name":"fee","type":["null","com.example.common.Fee"],"default":null},{"name":"note","type":"string","default":""}]}`
	compatibleProtoV3 = `syntax = "proto3";
package stock;
import "common/place.proto";
import "google/protobuf/timestamp.proto";
message StockMoved {
  string sku = 1;
  common.Place from = 2;
  google.protobuf.Timestamp at = 3;
  common.Place to = 4;
  string note = 5;
}
`
)

func fmtVersions(vs []*catalog.Version) string {
	var names []string
	for _, v := range vs {
		names = append(names, v.File)
	}
	return strings.Join(names, " ")
}
