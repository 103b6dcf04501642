package registryserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestMain doubles as `evtool registry serve` for the kill test: with
// EVTOOL_TEST_SERVE_DIR set, the test binary serves that catalog.
func TestMain(m *testing.M) {
	if dir := os.Getenv("EVTOOL_TEST_SERVE_DIR"); dir != "" {
		serveHelper(dir)
		return
	}
	os.Exit(m.Run())
}

// firstLine sends the first line written to it (without its line break)
// on line and discards the rest.
type firstLine struct {
	buf  []byte
	sent bool
	line chan string
}

func (w *firstLine) Write(p []byte) (int, error) {
	if !w.sent {
		w.buf = append(w.buf, p...)
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			w.line <- string(w.buf[:i])
			w.sent = true
		}
	}
	return len(p), nil
}

// serveHelper serves dir and prints its URL on a line of its own once it
// listens: the test's readiness signal.
func serveHelper(dir string) {
	s, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := fmt.Println("http://" + ln.Addr().String()); err != nil {
		os.Exit(2)
	}
	_ = s.Serve(context.Background(), ln)
	os.Exit(0)
}

func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && tempPattern().MatchString(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func idsOnDisk(t testing.TB, dir string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, catalog.SchemaIDsFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc idsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.IDs
}

// TestServerCrashBeforeRename simulates a crash between writing the
// temporary version file and moving it into place: the catalog stays
// consistent, the leftover is ignored by the loader and removed by the
// next start, and the schema keeps the id it was given.
func TestServerCrashBeforeRename(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "BACKWARD", nil)
	crash := errors.New("simulated crash")
	s1, url := startServer(t, ServerOptions{Dir: dir, commitHook: func(tmp, final string) error {
		if strings.HasSuffix(final, "v2.json") {
			return crash
		}
		return nil
	}})
	schema := `{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}`
	_, err := srtest.SRClient(t, url).RegisterSchema(ctx, "com.example.thing.happened", sr.Schema{Schema: schema, Type: sr.TypeJSON}, -1, -1)
	if srtest.SRCode(err) != 50001 || srStatus(err) != 500 {
		t.Fatalf("registration during the crash: %v", err)
	}
	if strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("stack trace in the response: %v", err)
	}
	left := tempFiles(t, dir)
	if len(left) != 1 || !strings.Contains(left[0], ".v2.json.tmp-") {
		t.Fatalf("temporary files after the crash: %v", left)
	}
	cat, err := catalog.Load(dir)
	if err != nil || len(cat.Lookup("com.example.thing.happened").Versions) != 1 {
		t.Fatalf("catalog after the crash: %v", err)
	}
	digest := jsonvalue.Digest(decode(t, schema))
	idBefore, ok := idsOnDisk(t, dir)[digest]
	if !ok {
		t.Fatal("the id was not persisted before the version file")
	}

	// Restart: the leftover is removed, v1 is served, the registration
	// succeeds with the id it was given before the crash. (A crashed
	// process holds no lock.)
	s1.Close()
	s2, url2 := startServer(t, ServerOptions{Dir: dir})
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Fatalf("temporary files after restart: %v", left)
	}
	if got := s2.Subjects(); len(got) != 1 {
		t.Fatalf("subjects after restart: %v", got)
	}
	cl := srtest.SRClient(t, url2)
	id, err := cl.RegisterSchema(ctx, "com.example.thing.happened", sr.Schema{Schema: schema, Type: sr.TypeJSON}, -1, -1)
	if err != nil || id != idBefore {
		t.Fatalf("after restart: id %d, %v; want %d", id, err, idBefore)
	}
	if v, err := cl.SubjectVersions(ctx, "com.example.thing.happened"); err != nil || fmt.Sprint(v) != "[1 2]" {
		t.Fatalf("versions %v %v", v, err)
	}
}

// TestServerCrashWritingIDs: a crash while replacing the ids file leaves
// the old ids file whole and no version without an id.
func TestServerCrashWritingIDs(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "BACKWARD", nil)
	s, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	before := idsOnDisk(t, dir)
	s.store.hook = func(tmp, final string) error {
		if strings.HasSuffix(final, IDsFile) {
			return errors.New("simulated crash")
		}
		return nil
	}
	r := doHandler(t, s, "POST", "/subjects/com.example.thing.happened/versions", `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"x\":{}},\"required\":[\"id\"]}"}`)
	if r.status != 500 || r.code != 50001 {
		t.Fatalf("got %d %d %s", r.status, r.code, r.body)
	}
	if got := idsOnDisk(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("ids file changed: %v -> %v", before, got)
	}
	if cat := srtest.LoadCat(t, dir); len(cat.Lookup("com.example.thing.happened").Versions) != 1 {
		t.Fatal("a version was written without its id")
	}
	s.Close() // a crashed process holds no lock
	s2, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Fatalf("temporary files after restart: %v", left)
	}
}

// TestServerKilledDuringRegistrations runs the server as a separate
// process, SIGKILLs it while registrations are in flight, and checks that
// a restarted server serves a consistent catalog in which every
// acknowledged registration is present with its id.
func TestServerKilledDuringRegistrations(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL semantics")
	}
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EVTOOL_TEST_SERVE_DIR="+dir)
	cmd.Stderr = os.Stderr
	// The server's first line is its URL, printed once it listens.
	first := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = first
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var url string
	select {
	case url = <-first.line:
	case <-exited:
	case <-time.After(60 * time.Second): // generous: only a hung start ends here
	}
	if url == "" {
		_ = cmd.Process.Kill()
		t.Fatal("the server subprocess did not start")
	}
	cl := srtest.SRClient(t, url)
	var (
		next  atomic.Int64
		acked sync.Map // schema text -> id
		count atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
	)
	kill := func() { once.Do(func() { _ = cmd.Process.Kill() }) }
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				schema := fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string"},"f%d":{"type":"integer"}}}`, i)
				id, err := cl.RegisterSchema(ctx, "com.example.thing.happened", sr.Schema{Schema: schema, Type: sr.TypeJSON}, -1, -1)
				if err != nil {
					return // the server is gone
				}
				acked.Store(schema, id)
				if count.Add(1) >= 25 {
					kill()
				}
			}
		}()
	}
	wg.Wait()
	kill()
	<-exited

	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("the catalog does not load after the kill: %v", err)
	}
	typ := cat.Lookup("com.example.thing.happened")
	s, err := NewServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Fatalf("temporary files after restart: %v", left)
	}
	snap := s.store.current()
	st := snap.subjects["com.example.thing.happened"]
	if len(st.versions) != len(typ.Versions) {
		t.Fatalf("restart serves %d versions, the catalog has %d", len(st.versions), len(typ.Versions))
	}
	ids := map[int]bool{}
	for _, vs := range st.versions {
		if ids[vs.id] {
			t.Fatalf("id %d given twice", vs.id)
		}
		ids[vs.id] = true
	}
	n := 0
	acked.Range(func(k, v any) bool {
		n++
		d := jsonvalue.Digest(decode(t, k.(string)))
		for _, vs := range st.versions {
			if vs.form.Digest == d {
				if vs.id != v.(int) {
					t.Errorf("acknowledged id %d is now %d", v.(int), vs.id)
				}
				return true
			}
		}
		t.Errorf("an acknowledged registration is missing: %s", k)
		return true
	})
	if n < 25 {
		t.Fatalf("only %d registrations were acknowledged", n)
	}
	// And it keeps going: the next registration is the next version.
	r := doHandler(t, s, "POST", "/subjects/com.example.thing.happened/versions", `{"schemaType":"JSON","schema":"{\"type\":\"object\",\"title\":\"after the crash\"}"}`)
	var resp struct{ Version int }
	_ = json.Unmarshal([]byte(r.body), &resp)
	if r.status != 200 || resp.Version != len(typ.Versions)+1 {
		t.Fatalf("registration after restart: %d %s (want version %d)", r.status, r.body, len(typ.Versions)+1)
	}
}

// TestServerNewTypeMetaWriteFails: when the event.yaml of a new type (its
// topic) cannot be written, the registration fails and leaves no version
// behind: a v1.json without its topic would be a type the subject can
// never extend under the topic-type strategy.
func TestServerNewTypeMetaWriteFails(t *testing.T) {
	dir := srtest.MinimalCatalog(t, "NONE", nil)
	failed := false
	s, _ := startServer(t, ServerOptions{Dir: dir, Strategy: schemaregistry.StrategyTopicType, commitHook: func(tmp, final string) error {
		if strings.HasSuffix(final, "event.yaml") && !failed {
			failed = true
			os.Remove(tmp)
			return errors.New("disk full")
		}
		return nil
	}})
	const subject = "orders-com.example.order.placed"
	body := registerBody(`{"type":"object"}`)
	r := doHandler(t, s, "POST", "/subjects/"+subject+"/versions", body)
	if r.status != 500 {
		t.Fatalf("HTTP %d: %s", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.order.placed", "v1.json")); err == nil {
		t.Fatal("a failed registration left its v1.json")
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.order.placed")); err == nil {
		t.Fatal("a failed registration left its type directory")
	}
	r = doHandler(t, s, "POST", "/subjects/"+subject+"/versions", body)
	if r.status != 200 || !strings.Contains(r.body, `"version":1`) {
		t.Fatalf("retry: HTTP %d: %s", r.status, r.body)
	}
	if got := srtest.LoadCat(t, dir).Lookup("com.example.order.placed"); got == nil || got.Meta.Topic != "orders" {
		t.Fatalf("after the retry: %+v", got)
	}
}
