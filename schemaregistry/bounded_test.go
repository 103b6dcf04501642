package schemaregistry

import (
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// hostileRegistry answers the few endpoints pull and diff read: subjects
// with versions, each version's schema produced by schemaOf. It counts the
// requests in flight at once.
type hostileRegistry struct {
	subjects, versions int
	schemaOf           func(w http.ResponseWriter, subject string, version int)
	inFlight, peak     atomic.Int64
	served             atomic.Int64
}

func (h *hostileRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for {
		p := h.peak.Load()
		if n <= p || h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	w.Header().Set("Content-Type", wire.ContentType)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/subjects":
		var names []string
		for i := range h.subjects {
			names = append(names, fmt.Sprintf(`"com.example.s%d"`, i))
		}
		fmt.Fprintf(w, "[%s]", strings.Join(names, ","))
	case len(parts) == 3 && parts[2] == "versions":
		var vs []string
		for i := 1; i <= h.versions; i++ {
			vs = append(vs, fmt.Sprint(i))
		}
		fmt.Fprintf(w, "[%s]", strings.Join(vs, ","))
	case len(parts) == 4 && parts[2] == "versions":
		// Slow enough that unbounded fetching would pile up: this
		// latency is the behaviour under test, not a wait.
		time.Sleep(2 * time.Millisecond)
		var v int
		fmt.Sscan(parts[3], &v)
		h.served.Add(1)
		h.schemaOf(w, parts[1], v)
	case strings.HasPrefix(r.URL.Path, "/config"):
		fmt.Fprint(w, `{"compatibilityLevel":"BACKWARD"}`)
	default:
		w.WriteHeader(404)
		fmt.Fprint(w, `{"error_code":40401,"message":"not found"}`)
	}
}

func smallSchema(w http.ResponseWriter, subject string, version int) {
	fmt.Fprintf(w, `{"subject":%q,"version":%d,"id":%d,"schemaType":"JSON","schema":"{\"type\":\"object\"}"}`, subject, version, version)
}

// hugeSchema streams a schema string of size bytes without a
// Content-Length, as a hostile registry would.
func hugeSchema(size int) func(w http.ResponseWriter, subject string, version int) {
	return func(w http.ResponseWriter, subject string, version int) {
		fmt.Fprintf(w, `{"subject":%q,"version":%d,"id":1,"schemaType":"JSON","schema":"{\"description\":\"`, subject, version)
		chunk := strings.Repeat("x", 64<<10)
		for written := 0; written < size; written += len(chunk) {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return // the client stopped reading
			}
		}
		fmt.Fprint(w, `\"}"}`)
	}
}

// gzipBomb answers a schema of size bytes compressed with gzip (a few
// hundred KiB on the wire).
func gzipBomb(size int) func(w http.ResponseWriter, subject string, version int) {
	return func(w http.ResponseWriter, subject string, version int) {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprintf(zw, `{"subject":%q,"version":%d,"id":1,"schemaType":"JSON","schema":"{\"description\":\"`, subject, version)
		chunk := strings.Repeat("x", 64<<10)
		for written := 0; written < size; written += len(chunk) {
			if _, err := fmt.Fprint(zw, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(zw, `\"}"}`)
		_ = zw.Close()
	}
}

// trickle sends a byte every 50ms, for up to a minute: a slow-loris
// registry.
func trickle(w http.ResponseWriter, subject string, version int) {
	fmt.Fprintf(w, `{"subject":%q,"version":%d,"id":1,"schemaType":"JSON","schema":"{\"description\":\"`, subject, version)
	for i := 0; i < 1200; i++ {
		if _, err := fmt.Fprint(w, "x"); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond) // the slow loris is what is tested, not a wait
	}
}

// TestClientBoundsResponses: pull, diff and --against registry: read a
// registry through one client, whose responses are bounded one by one and
// in total (a clear error naming the request and the limit), and whose
// requests in flight are bounded.
func TestClientBoundsResponses(t *testing.T) {
	cases := []struct {
		name     string
		reg      *hostileRegistry
		opts     ClientOptions
		contains string
	}{
		{"one huge schema", &hostileRegistry{subjects: 1, versions: 1, schemaOf: hugeSchema(64 << 20)},
			ClientOptions{MaxResponse: 1 << 20}, "/subjects/com.example.s0/versions/1 is larger than 1048576 bytes, the limit (--max-response)"},
		{"a declared length beyond the bound", &hostileRegistry{subjects: 1, versions: 1, schemaOf: func(w http.ResponseWriter, subject string, version int) {
			w.Header().Set("Content-Length", fmt.Sprint(2<<20))
			w.WriteHeader(200)
		}}, ClientOptions{MaxResponse: 1 << 20}, "is larger than 1048576 bytes"},
		{"a gzip bomb: the bound counts what is decompressed", &hostileRegistry{subjects: 1, versions: 1, schemaOf: gzipBomb(256 << 20)},
			ClientOptions{MaxResponse: 1 << 20}, "is larger than 1048576 bytes"},
		{"a response that trickles", &hostileRegistry{subjects: 1, versions: 1, schemaOf: trickle},
			// net/http says "Client.Timeout" while awaiting headers and
			// "context deadline exceeded" once the body is being read.
			ClientOptions{Timeout: 500 * time.Millisecond}, "Client.Timeout|deadline exceeded"},
		{"many schemas within the bound, too many together", &hostileRegistry{subjects: 4, versions: 8, schemaOf: hugeSchema(200 << 10)},
			ClientOptions{MaxResponse: 1 << 20, MaxResponseTotal: 2 << 20}, "exceed 2097152 bytes in total, the limit (--max-response-total)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(c.reg)
			defer hs.Close()
			c.opts.URL = hs.URL
			cl := MustNewClient(t, c.opts)
			_, err := Pull(ctx, cl, PullOptions{SyncOptions: SyncOptions{Strategy: StrategyType}, Out: filepath.Join(t.TempDir(), "out")})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("pull: %v", err)
			}
			srtest.MustContain(t, err.Error(), hs.URL)
			if !slices.ContainsFunc(strings.Split(c.contains, "|"), func(sub string) bool { return strings.Contains(err.Error(), sub) }) {
				t.Fatalf("%q contains none of %q", err, c.contains)
			}
		})
	}
}

// TestClientBoundsConcurrency: subjects with many versions are read with at
// most DefaultMaxConcurrent requests in flight (sr's Schemas fetched every
// version of a subject at once).
func TestClientBoundsConcurrency(t *testing.T) {
	reg := &hostileRegistry{subjects: 3, versions: 40, schemaOf: smallSchema}
	hs := httptest.NewServer(reg)
	defer hs.Close()
	cl := MustNewClient(t, ClientOptions{URL: hs.URL})
	res, err := Pull(ctx, cl, PullOptions{SyncOptions: SyncOptions{Strategy: StrategyType}, Out: filepath.Join(t.TempDir(), "out")})
	if err != nil || res.Versions != 120 {
		t.Fatalf("pull: %+v %v", res, err)
	}
	if peak := reg.peak.Load(); peak > DefaultMaxConcurrent {
		t.Fatalf("%d requests in flight at once, the bound is %d", peak, DefaultMaxConcurrent)
	}
}
