package registryserver

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestServerConcurrentSubjectsSharedSchema: many clients register at once
// into several subjects, new and existing, with schemas that refer to one
// shared file and schemas that several subjects share. Every acknowledged
// registration is in the catalog, nothing unacknowledged is, one schema
// has one id in every subject, two schemas never share an id, and the
// ids survive a restart.
func TestServerConcurrentSubjectsSharedSchema(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", map[string]string{
		"schemas/common/id.json": `{"type":"string","minLength":1}`,
	})
	s, url := startServer(t, ServerOptions{Dir: dir})
	// A loaded machine (and -race) makes the queue long.
	cl := srtest.SRClient(t, url, sr.HTTPClient(&http.Client{Timeout: 5 * time.Minute}))
	subjects := []string{thing, "com.example.a.happened", "com.example.b.happened", "com.example.c.happened"}
	const schemas = 12
	schemaOf := func(i int) string {
		return fmt.Sprintf(`{"type":"object","properties":{"id":{"$ref":"../common/id.json"},"p%02d":{"type":"integer"}},"required":["id"]}`, i)
	}
	type reg struct {
		subject string
		schema  int
		id      int
		err     error
	}
	var regs []*reg
	for round := 0; round < 2; round++ { // each registration twice: the second must find the first
		for _, subj := range subjects {
			for i := 0; i < schemas; i++ {
				regs = append(regs, &reg{subject: subj, schema: i})
			}
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, r := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r.id, r.err = cl.RegisterSchema(ctx, r.subject, sr.Schema{Schema: schemaOf(r.schema), Type: sr.TypeJSON}, -1, -1)
		}()
	}
	close(start)
	wg.Wait()
	idOf := map[int]int{} // schema -> id
	bySubject := map[string]map[int]bool{}
	for _, r := range regs {
		if r.err != nil {
			t.Fatalf("%s schema %d: %v", r.subject, r.schema, r.err)
		}
		if id, ok := idOf[r.schema]; ok && id != r.id {
			t.Fatalf("schema %d got ids %d and %d", r.schema, id, r.id)
		}
		idOf[r.schema] = r.id
		if bySubject[r.subject] == nil {
			bySubject[r.subject] = map[int]bool{}
		}
		bySubject[r.subject][r.schema] = true
	}
	schemaOfID := map[int]int{}
	for sch, id := range idOf {
		if other, dup := schemaOfID[id]; dup {
			t.Fatalf("id %d given to schemas %d and %d", id, other, sch)
		}
		schemaOfID[id] = sch
	}
	cat := srtest.LoadCat(t, dir)
	for _, subj := range subjects {
		typ := cat.Lookup(subj)
		if typ == nil {
			t.Fatalf("no type %s", subj)
		}
		want := schemas
		if subj == thing {
			want++ // its v1
		}
		if len(typ.Versions) != want {
			t.Fatalf("%s has %d versions, want %d (a registration was lost or written twice)", subj, len(typ.Versions), want)
		}
		seen := map[string]bool{}
		for _, v := range typ.Versions {
			if seen[v.Digest] {
				t.Fatalf("%s v%d is a duplicate", subj, v.Number)
			}
			seen[v.Digest] = true
		}
		for i := 0; i < schemas; i++ {
			if !seen[jsonvalue.Digest(decode(t, schemaOf(i)))] {
				t.Fatalf("%s: the acknowledged schema %d is not in the catalog", subj, i)
			}
		}
	}
	// A restart serves the same ids.
	served := map[int]string{}
	for _, id := range idOf {
		got, err := cl.SchemaByID(ctx, id)
		if err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		served[id] = jsonvalue.Digest(decode(t, got.Schema))
	}
	s.Close()
	s2, url2 := startServer(t, ServerOptions{Dir: dir})
	_ = s2
	cl2 := srtest.SRClient(t, url2)
	for _, id := range idOf {
		got, err := cl2.SchemaByID(ctx, id)
		if err != nil {
			t.Fatalf("after restart, id %d: %v", id, err)
		}
		if jsonvalue.Digest(decode(t, got.Schema)) != served[id] {
			t.Fatalf("after restart id %d is another schema", id)
		}
	}
}
