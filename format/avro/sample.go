package avro

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Step is one move from a datum's root toward a place inside it: into a
// record field, a union branch, an array item or a map value.
type Step struct {
	Field  string
	Branch int
	Item   bool
	Value  bool
}

// Field, Branch, Item and Value build steps.
func FieldStep(name string) Step { return Step{Field: name, Branch: -1} }
func BranchStep(i int) Step      { return Step{Branch: i} }
func ItemStep() Step             { return Step{Item: true, Branch: -1} }
func ValueStep() Step            { return Step{Value: true, Branch: -1} }

// maxSampleDepth bounds recursion: below it a union takes a branch that
// ends and arrays and maps are empty.
const maxSampleDepth = 6

// maxSampleValues bounds the values of one datum the same way: records
// whose fields are collections of records fan out, and a few kilobytes of
// schema would otherwise make datums of millions of values.
const maxSampleValues = 10_000

// maxSetValues bounds the values of all the datums of one Samples call:
// each datum gets an equal share (at least minSetShare, at most
// maxSampleValues), so a recursive record of a few self-references does
// not make a thousand datums of ten thousand values each.
const (
	maxSetValues = 100_000
	minSetShare  = 200
)

// maxSampleBytes bounds the bytes, strings and fixed values of one datum:
// beyond it collections are empty and unions take their smallest branch,
// so arrays of a large fixed do not multiply it. A datum still holds what
// its type needs at least, which lint bounds by MaxDatumSize.
const maxSampleBytes = MaxDatumSize

// sharedFixed is the size above which fixed values are not made one by
// one: they are slices of one buffer, read-only, shared by every datum of
// a generator. A witness never depends on a large fixed's content, and
// copying it for each datum cost gigabytes.
const sharedFixed = 4096

// Cover is how many datums Samples needs so that every union branch, every
// enum symbol and every edge value of every type occurs in some datum.
func (s *Schema) Cover() int {
	n := len(edgeStrings)
	walk(s.Root, func(node *Node) {
		n = max(n, len(node.Branches), len(node.Symbols))
	})
	return n
}

// Samples returns n datums, deterministic for seed: the first Cover() walk
// every branch, symbol and edge value (int32/int64 limits, empty and long
// strings, empty and full collections); the rest are random.
func (s *Schema) Samples(seed uint64, n int) ([]any, error) {
	g, err := s.generator(seed)
	if err != nil {
		return nil, err
	}
	out := make([]any, n)
	cover := s.Cover()
	g.valueLimit = min(maxSampleValues, max(minSetShare, maxSetValues/max(n, 1)))
	for i := range out {
		g.index, g.edges, g.spent, g.bytesSpent = i, i < cover, 0, 0
		out[i] = g.value(s.Root, 0, nil, nil)
	}
	return out, nil
}

// Sample returns one datum for seed.
func (s *Schema) Sample(seed uint64) (any, error) {
	g, err := s.generator(seed)
	if err != nil {
		return nil, err
	}
	g.index = int(seed % uint64(max(1, s.Cover())))
	return g.value(s.Root, 0, nil, nil), nil
}

// SampleAt returns a datum whose value at path (steps from the root) is
// leaf, or a sampled value there when leaf is nil; index picks which edge
// value the rest of the datum uses.
func (s *Schema) SampleAt(seed uint64, index int, path []Step, leaf any) (any, error) {
	g, err := s.generator(seed)
	if err != nil {
		return nil, err
	}
	g.index, g.edges = index, true
	g.forced = true
	v := g.value(s.Root, 0, path, leaf)
	if g.pathErr != nil {
		return nil, g.pathErr
	}
	return v, nil
}

type generator struct {
	rng     *rand.Rand
	index   int
	edges   bool
	ends    map[*Node]bool
	forced  bool
	pathErr error
	// spent counts the values of the datum being made, up to valueLimit;
	// bytesSpent its bytes, strings and fixed values.
	spent, valueLimit, bytesSpent int
	minSize                       map[*Node]int64
	// fixed is the buffer large fixed values are slices of.
	fixed []byte
	// decimals holds the decimals of fixed types over sharedFixed bytes,
	// by value and size: read-only like fixed, made once each.
	decimals map[decimalKey][]byte
}

type decimalKey struct {
	v    int64
	size int
}

func (s *Schema) generator(seed uint64) (*generator, error) {
	ends := terminating(s.Root)
	if !ends[s.Root] {
		return nil, errors.New("the schema has no finite datum: every path recurses without end")
	}
	return &generator{rng: rand.New(rand.NewPCG(seed, 0x61767230)), ends: ends, valueLimit: maxSampleValues, minSize: s.minSize}, nil
}

// terminating reports for each node whether it has a finite datum: a
// fixpoint, because a recursive record ends only through a union branch
// or a collection that can be empty.
func terminating(root *Node) map[*Node]bool {
	var nodes []*Node
	walk(root, func(n *Node) { nodes = append(nodes, n) })
	ends := map[*Node]bool{}
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			if ends[n] {
				continue
			}
			ok := true
			switch n.Kind {
			case "record":
				for _, f := range n.Fields {
					ok = ok && ends[f.Type]
				}
			case "union":
				ok = false
				for _, b := range n.Branches {
					ok = ok || ends[b]
				}
			}
			if ok {
				ends[n], changed = true, true
			}
		}
	}
	return ends
}

var edgeStrings = []string{"", "a", strings.Repeat("long-", 60), "ünïcödé €𝄞", "0", "-1", "\"quoted\"\n"}

var edgeInts = []int32{0, math.MinInt32, math.MaxInt32, -1, 1, 42}
var edgeLongs = []int64{0, math.MinInt64, math.MaxInt64, -1, 1, 1_700_000_000_000}
var edgeDoubles = []float64{0, -1.5, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-9, 12.34}
var edgeFloats = []float32{0, -1.5, math.MaxFloat32, math.SmallestNonzeroFloat32, 3.25}

func pick[T any](g *generator, edges []T, random func() T) T {
	if g.edges {
		return edges[g.index%len(edges)]
	}
	if g.rng.IntN(3) == 0 {
		return edges[g.rng.IntN(len(edges))]
	}
	return random()
}

func (g *generator) value(n *Node, depth int, path []Step, leaf any) any {
	if len(path) == 0 && leaf != nil && g.forced {
		g.forced = false
		return leaf
	}
	var step *Step
	if len(path) > 0 {
		step = &path[0]
	}
	g.spent++
	deep := depth >= maxSampleDepth || g.spent > g.valueLimit || g.bytesSpent > maxSampleBytes
	switch n.Kind {
	case "null":
		return nil
	case "boolean":
		return g.index%2 == 1 || (!g.edges && g.rng.IntN(2) == 1)
	case "int":
		return pick(g, edgeInts, func() int32 { return int32(g.rng.Uint32()) })
	case "long":
		return pick(g, edgeLongs, func() int64 { return int64(g.rng.Uint64()) })
	case "float":
		return pick(g, edgeFloats, func() float32 { return float32(g.rng.NormFloat64() * 1e3) })
	case "double":
		return pick(g, edgeDoubles, func() float64 { return g.rng.NormFloat64() * 1e6 })
	case "string":
		str := pick(g, edgeStrings, func() string { return g.word(20) })
		g.bytesSpent += len(str)
		return str
	case "bytes", "fixed":
		if n.Logical == "decimal" {
			d := g.decimal(n)
			g.bytesSpent += len(d)
			return d
		}
		if n.Kind == "fixed" {
			return g.bytes(n.Size)
		}
		return g.bytes(-1)
	case "enum":
		if g.edges {
			return n.Symbols[g.index%len(n.Symbols)]
		}
		return n.Symbols[g.rng.IntN(len(n.Symbols))]
	case "array":
		count := g.count(deep)
		if step != nil {
			if !step.Item {
				return g.badPath(n, *step)
			}
			count = max(count, 1)
		}
		out := make([]any, count)
		for i := range out {
			if i == 0 && step != nil {
				out[i] = g.value(n.Items, depth+1, path[1:], leaf)
			} else if g.bytesSpent > maxSampleBytes {
				return out[:i]
			} else {
				out[i] = g.value(n.Items, depth+1, nil, nil)
			}
		}
		return out
	case "map":
		count := g.count(deep)
		out := map[string]any{}
		if step != nil {
			if !step.Value {
				return g.badPath(n, *step)
			}
			out["k"] = g.value(n.Values, depth+1, path[1:], leaf)
		}
		for i := range count {
			if g.bytesSpent > maxSampleBytes {
				break
			}
			out[fmt.Sprintf("key%d", i)] = g.value(n.Values, depth+1, nil, nil)
		}
		return out
	case "record":
		out := make(map[string]any, len(n.Fields))
		onPath := false
		for _, f := range n.Fields {
			if step != nil && step.Field == f.Name {
				onPath = true
				out[f.Name] = g.value(f.Type, depth+1, path[1:], leaf)
			} else {
				out[f.Name] = g.value(f.Type, depth+1, nil, nil)
			}
		}
		if step != nil && !onPath {
			return g.badPath(n, *step)
		}
		return out
	case "union":
		i := g.branch(n, deep)
		if step != nil {
			if step.Branch < 0 || step.Branch >= len(n.Branches) {
				return g.badPath(n, *step)
			}
			i = step.Branch
			path = path[1:]
		}
		b := n.Branches[i]
		v := g.value(b, depth+1, path, leaf)
		if b.Kind == "null" {
			return nil
		}
		return map[string]any{b.BranchName(): v}
	}
	return nil
}

func (g *generator) badPath(n *Node, s Step) any {
	if g.pathErr == nil {
		g.pathErr = fmt.Errorf("step %+v does not apply to %s", s, n.Describe())
	}
	return nil
}

func (g *generator) branch(n *Node, deep bool) int {
	i := g.rng.IntN(len(n.Branches))
	if g.edges {
		i = g.index % len(n.Branches)
	}
	if g.bytesSpent > maxSampleBytes {
		// Out of bytes: the branch whose datums are smallest.
		for j, b := range n.Branches {
			if g.minSize[b] < g.minSize[n.Branches[i]] {
				i = j
			}
		}
		return i
	}
	if deep || !g.ends[n.Branches[i]] {
		// Prefer a branch that ends without recursing.
		for j, b := range n.Branches {
			if g.ends[b] && (b.Kind != "record" || !deep) {
				return j
			}
		}
		for j, b := range n.Branches {
			if g.ends[b] {
				return j
			}
		}
	}
	return i
}

func (g *generator) count(deep bool) int {
	if deep {
		return 0
	}
	if g.edges {
		return []int{0, 1, 3}[g.index%3]
	}
	return g.rng.IntN(4)
}

func (g *generator) bytes(size int) []byte {
	n := size
	if n < 0 {
		if g.edges {
			n = []int{0, 1, 16, 300}[g.index%4]
		} else {
			n = g.rng.IntN(24)
		}
	}
	g.bytesSpent += n
	if n > sharedFixed {
		if len(g.fixed) < n {
			g.fixed = make([]byte, n)
			for i := range g.fixed {
				g.fixed[i] = byte(i * 37)
			}
		}
		return g.fixed[:n:n]
	}
	out := make([]byte, n)
	for i := range out {
		if g.edges {
			out[i] = byte(i*37 + g.index)
		} else {
			out[i] = byte(g.rng.Uint32())
		}
	}
	return out
}

func (g *generator) word(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"
	b := make([]byte, g.rng.IntN(n+1))
	for i := range b {
		b[i] = letters[g.rng.IntN(len(letters))]
	}
	return string(b)
}
