// Package gen writes a synthetic catalog with consumer contracts for the
// consumers check benchmark: types × versions JSON Schemas and consumers
// that each read a few fields of some types.
package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Shape sizes the catalog.
type Shape struct {
	Types, Versions, Consumers int
	// ReadersPerType is how many consumers read each type.
	ReadersPerType int
	Seed           uint64
}

// Write writes the catalog into dir (created): evtool.yaml, schemas/ and
// consumers/. Every v1 has 24 properties of assorted kinds; each later
// version adds an optional property; one type in ten narrows a property
// in its last version, read by one of its consumers, and one in ten
// narrows one no consumer reads.
func Write(dir string, s Shape) error {
	r := rand.New(rand.NewPCG(s.Seed, 1))
	if err := os.MkdirAll(filepath.Join(dir, "consumers"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte("version: 1\ncompat:\n  mode: FULL_TRANSITIVE\n"), 0o644); err != nil {
		return err
	}
	type read struct {
		typ      string
		versions []int
		fields   []string
	}
	reads := make([][]read, s.Consumers)
	for t := range s.Types {
		name := fmt.Sprintf("com.example.bench.t%03d", t)
		props := map[string]any{}
		var names []string
		for p := range 24 {
			n := fmt.Sprintf("p%02d", p)
			names = append(names, n)
			switch p % 6 {
			case 0:
				props[n] = map[string]any{"type": "string", "maxLength": 40 + r.IntN(40)}
			case 1:
				props[n] = map[string]any{"type": "integer", "minimum": 0, "maximum": 1000 + r.IntN(1000)}
			case 2:
				props[n] = map[string]any{"enum": []any{"a", "b", "c", "d"}}
			case 3:
				props[n] = map[string]any{"type": "object", "properties": map[string]any{
					"amount": map[string]any{"type": "number"}, "currency": map[string]any{"type": "string", "pattern": "^[A-Z]{3}$"}}}
			case 4:
				props[n] = map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 20}, "maxItems": 10}
			default:
				props[n] = map[string]any{"type": "boolean"}
			}
		}
		readPlanted := names[r.IntN(6)*4]     // a string property some consumer reads
		unreadPlanted := names[1+r.IntN(5)*4] // an integer property nobody reads
		for v := 1; v <= s.Versions; v++ {
			if v > 1 {
				props[fmt.Sprintf("added%02d", v)] = map[string]any{"type": "string"}
			}
			doc := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
				"required": []any{"p00", "p01"}, "properties": clone(props)}
			if v == s.Versions && t%10 == 0 {
				doc["properties"].(map[string]any)[readPlanted] = map[string]any{"type": "string", "maxLength": 5}
			}
			if v == s.Versions && t%10 == 5 {
				doc["properties"].(map[string]any)[unreadPlanted] = map[string]any{"type": "integer", "minimum": 0, "maximum": 3}
			}
			b, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				return err
			}
			d := filepath.Join(dir, "schemas", name)
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("v%d.json", v)), b, 0o644); err != nil {
				return err
			}
		}
		for i := range s.ReadersPerType {
			c := (t*s.ReadersPerType + i) % s.Consumers
			fields := []string{"/p00", "/p03/amount"}
			if i == 0 && !contains(fields, "/"+readPlanted) {
				fields = append(fields, "/"+readPlanted)
			}
			for range 2 {
				f := "/" + names[r.IntN(len(names))]
				if f != "/"+unreadPlanted && !contains(fields, f) {
					fields = append(fields, f)
				}
			}
			first := 1 + r.IntN(s.Versions-1)
			reads[c] = append(reads[c], read{name, []int{first, s.Versions}, fields})
		}
	}
	for c := range s.Consumers {
		var b strings.Builder
		fmt.Fprintf(&b, "owner: team-%02d\nreads:\n", c)
		for _, rd := range reads[c] {
			vs, _ := json.Marshal(rd.versions)
			fs, _ := json.Marshal(rd.fields)
			fmt.Fprintf(&b, "  %s:\n    versions: %s\n    fields: %s\n", rd.typ, vs, fs)
		}
		if err := os.WriteFile(filepath.Join(dir, "consumers", fmt.Sprintf("c%02d.yaml", c)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
