package jsonschema

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
)

// FuzzReferenceScan: the byte scan never panics, gives only keys of the
// three kinds, and on valid JSON misses nothing the decoded document
// holds: each reference the decoder's walk places is found, or the byte
// scan says anything, or its name is (an id the byte scan took from
// inside a string makes relative references match by name, which
// matches more files, never fewer); each id is found. The decoder's view is the same document made to hold a \u
// escape, which sends the scan down its decoding path.
func FuzzReferenceScan(f *testing.F) {
	for _, s := range []string{
		`{"properties": {"x": {"$ref": "../common/s1.json#/$defs/leaf"}}}`,
		`{"$id": "https://example.com/a/v1.json", "$ref": "../b/Addr.json"}`,
		`{"\u0024ref": "../common/s2.json"}`,
		`{"$ref": "..\/common\/s3.json"}`,
		`{"id": "urn:x", "a": "\"$ref\": \"b.json", "$schema": "m.json"}`,
		`{"$ref": "s.json`,
		`{"a": "\"id", "\"id": "https://example.com/x.json", "$ref": "y.json"}`,
	} {
		f.Add("a/v1.json", []byte(s))
	}
	f.Fuzz(func(t *testing.T, rel string, data []byte) {
		got := Provider{}.ScanReferences(rel, data)
		for _, k := range append(slices.Clone(got.Refs), got.IDs...) {
			if !k.IsURL() && !strings.HasPrefix(string(k), string(format.PathKey(""))) && !strings.HasPrefix(string(k), string(format.SegmentKey(""))) {
				t.Fatalf("key %q is of no kind", k)
			}
		}
		if !json.Valid(data) || bytes.Contains(data, []byte(`\u`)) {
			return
		}
		decoded := Provider{}.ScanReferences(rel, []byte(`[`+string(data)+`, "\u0041"]`))
		if decoded.Anything && !got.Anything {
			t.Fatalf("decoded: anything; bytes: refs %q", got.Refs)
		}
		for _, k := range decoded.IDs {
			if !slices.Contains(got.IDs, k) {
				t.Fatalf("id %q missed (found %q)", k, got.IDs)
			}
		}
		for _, k := range decoded.Refs {
			if got.Anything || slices.Contains(got.Refs, k) {
				continue
			}
			if strings.HasPrefix(string(k), string(format.PathKey(""))) {
				name := string(k)[strings.LastIndex(string(k), "/")+1:]
				name = strings.TrimPrefix(name, string(format.PathKey("")))
				if slices.Contains(got.Refs, format.SegmentKey(name)) {
					continue
				}
			}
			t.Fatalf("reference %q missed (found %q, ids %q)", k, got.Refs, got.IDs)
		}
	})
}

// TestReferenceScanLinear: the scan's allocations grow with its input,
// no faster, for inputs of many shapes (references, ids, a document it
// must decode, keys it must skip, an unterminated value it reads to the
// end): bytes and allocations per input byte on about 1 MB stay under a
// bound and within 1.5 times those on an eighth of it.
func TestReferenceScanLinear(t *testing.T) {
	shapes := []struct {
		name       string
		head, unit string
		tail       string
	}{
		{"references", `{"a": [`, `{"$ref": "../common/s1.json#/$defs/x"}, `, `{}]}`},
		{"with an id", `{"$id": "https://example.com/a/v1.json", "a": [`, `{"$ref": "b/Addr.json"}, {"$id": "https://example.com/n.json"}, `, `{}]}`},
		{"decoded whole", `{"x": "\u0041", "a": [`, `{"$ref": "../common/s1.json"}, `, `{}]}`},
		{"keys to skip", `{"a": [`, `{"$defs": {"$comment": "$x", "id": 1}}, `, `{}]}`},
		{"unterminated value", `{"$ref": "`, `\"$ref\": \"x\", \"id\": \"`, ``},
		{"space after keys", `[`, `"$ref"                                , "id"          , `, `0]`},
		{"property names id", `{"properties": {`, `"id": {"type": "string"}, `, `"x": {}}}`},
	}
	const big = 1 << 20
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			perByte := func(size int) (bytesPer, allocsPer float64) {
				data := []byte(sh.head + strings.Repeat(sh.unit, size/len(sh.unit)) + sh.tail)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s := Provider{}.ScanReferences("a/v1.json", data)
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(s)
				return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data)), float64(after.Mallocs-before.Mallocs) / float64(len(data))
			}
			smallB, smallA := perByte(big / 8)
			bigB, bigA := perByte(big)
			t.Logf("per input byte: %.2f bytes, %.4f allocations (1 MB); %.2f, %.4f (128 KB)", bigB, bigA, smallB, smallA)
			if bigB > maxScanBytesPerByte || bigB > 1.5*smallB+1 || bigA > 1.5*smallA+0.01 {
				t.Errorf("%s: %.2f bytes and %.4f allocations per input byte on 1 MB, %.2f and %.4f on 128 KB: not linear (bound %d bytes per byte)",
					sh.name, bigB, bigA, smallB, smallA, maxScanBytesPerByte)
			}
		})
	}
}

// maxScanBytesPerByte bounds the bytes the scan allocates per input byte.
const maxScanBytesPerByte = 64

// BenchmarkReferenceScan scans about 1 MB of references (bytes per
// second: the scan's throughput).
func BenchmarkReferenceScan(b *testing.B) {
	data := []byte(`{"a": [` + strings.Repeat(`{"$ref": "../common/s1.json#/$defs/x"}, `, 1<<20/40) + `{}]}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Provider{}.ScanReferences("a/v1.json", data)
	}
}
