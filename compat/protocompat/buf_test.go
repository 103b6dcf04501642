package protocompat

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

// messagesOf compiles every .proto file of dir and returns its messages
// (nested included, map entries not) by full name.
func messagesOf(t *testing.T, dir string) map[protoreflect.FullName]*pb.Schema {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	names, _ := filepath.Glob(filepath.Join(dir, "*.proto"))
	out := map[protoreflect.FullName]*pb.Schema{}
	for _, n := range names {
		fd, err := pb.Compile(root.FS(), filepath.Base(n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		var walk func(protoreflect.MessageDescriptors)
		walk = func(ms protoreflect.MessageDescriptors) {
			for i := 0; i < ms.Len(); i++ {
				m := ms.Get(i)
				if !m.IsMapEntry() {
					out[m.FullName()] = &pb.Schema{File: fd.Path(), Desc: fd, Message: m}
				}
				walk(m.Messages())
			}
		}
		walk(fd.Messages())
	}
	return out
}

// TestBufBreakingCases runs buf's breaking-change test data for the rule
// families that are about data (wire and JSON compatibility, deletions,
// oneofs, defaults, required fields, enum values): every message present
// in both the previous and the current module is compared BACKWARD, and
// the places evtool breaks are set beside the annotations buf's own test
// expects, in buf/verdicts.golden. Places only one side flags are listed
// with evtool's rule and counterexample, or evtool's verdict.
func TestBufBreakingCases(t *testing.T) {
	f, err := os.Open("testdata/buf/expected.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bufAt := map[string]map[string][]string{} // dir → file:line → buf rules
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		pos := parts[1][:strings.LastIndex(parts[1], ":")]
		if bufAt[parts[0]] == nil {
			bufAt[parts[0]] = map[string][]string{}
		}
		bufAt[parts[0]][pos] = append(bufAt[parts[0]][pos], parts[2])
	}
	dirs := make([]string, 0, len(bufAt))
	for d := range bufAt {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var out bytes.Buffer
	total, agreed := 0, 0
	for _, d := range dirs {
		profile := ProfileWireJSON
		if strings.Contains(d, "_wire_compatible_") {
			profile = ProfileWire
		}
		prev := messagesOf(t, filepath.Join("testdata/buf", d, "previous"))
		cur := messagesOf(t, filepath.Join("testdata/buf", d, "current"))
		kinds := declaredAt(cur)
		evAt := map[string][]report.Finding{}
		var names []string
		for n := range prev {
			if cur[n] != nil {
				names = append(names, string(n))
			}
		}
		sort.Strings(names)
		for _, n := range names {
			fs := Compare(prev[protoreflect.FullName(n)], cur[protoreflect.FullName(n)], engine.Backward, engine.Options{Profile: profile, Samples: 6})
			checkWitnessed(t, fs)
			checkReplays(t, prev[protoreflect.FullName(n)], cur[protoreflect.FullName(n)], engine.Backward, fs)
			for _, f := range fs {
				if f.Severity == report.SeverityError && f.File != "" && f.Line > 0 {
					pos := fmt.Sprintf("%s:%d", f.File, f.Line)
					evAt[pos] = append(evAt[pos], f)
				}
			}
		}
		positions := map[string]bool{}
		for p := range bufAt[d] {
			positions[p] = true
		}
		for p := range evAt {
			positions[p] = true
		}
		sorted := make([]string, 0, len(positions))
		for p := range positions {
			sorted = append(sorted, p)
		}
		sort.Slice(sorted, func(i, j int) bool { return posLess(sorted[i], sorted[j]) })
		fmt.Fprintf(&out, "== %s (%s)\n", d, profile)
		for _, p := range sorted {
			total++
			b, e := bufAt[d][p], evAt[p]
			switch {
			case len(b) > 0 && len(e) > 0:
				agreed++
				fmt.Fprintf(&out, "  %s both: buf %s; evtool %s\n", p, strings.Join(b, ","), ruleList(e))
			case len(b) > 0:
				fmt.Fprintf(&out, "  %s buf only: %s; evtool: %s\n", p, strings.Join(b, ","), why(kinds[p]))
			default:
				fmt.Fprintf(&out, "  %s evtool only: %s\n     %s\n", p, ruleList(e), firstWitness(e))
			}
		}
	}
	fmt.Fprintf(&out, "\n%d places, %d flagged by both\n", total, agreed)
	golden(t, "testdata/buf/verdicts.golden", out.Bytes())
}

func ruleList(fs []report.Finding) string {
	var ids []string
	for _, f := range fs {
		if !strings.Contains(strings.Join(ids, ","), f.Rule) {
			ids = append(ids, f.Rule)
		}
	}
	return strings.Join(ids, ",")
}

func posLess(a, b string) bool {
	fa, la, _ := strings.Cut(a, ":")
	fb, lb, _ := strings.Cut(b, ":")
	if fa != fb {
		return fa < fb
	}
	var x, y int
	fmt.Sscan(la, &x)
	fmt.Sscan(lb, &y)
	return x < y
}

// declaredAt maps file:line to what is declared there in the current
// module: "extension of M" (of a message outside the module), "unused
// enum" (no field of a message uses it), or "field"/"message"/"enum".
func declaredAt(ms map[protoreflect.FullName]*pb.Schema) map[string]string {
	out := map[string]string{}
	used := map[protoreflect.FullName]bool{}
	at := func(d protoreflect.Descriptor, kind string) {
		file, line, _ := pb.Position(d)
		if line > 0 {
			if _, ok := out[fmt.Sprintf("%s:%d", file, line)]; !ok {
				out[fmt.Sprintf("%s:%d", file, line)] = kind
			}
		}
	}
	var files []protoreflect.FileDescriptor
	for _, s := range ms {
		files = append(files, s.Desc)
		fs := s.Message.Fields()
		for i := 0; i < fs.Len(); i++ {
			if e := fs.Get(i).Enum(); e != nil {
				used[e.FullName()] = true
			}
			at(fs.Get(i), "field")
		}
		at(s.Message, "message")
	}
	var enums func(protoreflect.EnumDescriptors)
	enums = func(es protoreflect.EnumDescriptors) {
		for i := 0; i < es.Len(); i++ {
			e := es.Get(i)
			kind := "unused enum"
			if used[e.FullName()] {
				kind = "enum"
			}
			at(e, kind)
			for j := 0; j < e.Values().Len(); j++ {
				at(e.Values().Get(j), kind)
			}
		}
	}
	var exts func(protoreflect.ExtensionDescriptors)
	exts = func(xs protoreflect.ExtensionDescriptors) {
		for i := 0; i < xs.Len(); i++ {
			x := xs.Get(i)
			if ms[x.ContainingMessage().FullName()] == nil {
				at(x, "extension of "+string(x.ContainingMessage().FullName()))
			} else {
				at(x, "field")
			}
		}
	}
	for _, f := range files {
		enums(f.Enums())
		exts(f.Extensions())
	}
	for _, s := range ms {
		enums(s.Message.Enums())
		exts(s.Message.Extensions())
	}
	return out
}

func why(kind string) string {
	if m, ok := strings.CutPrefix(kind, "extension of "); ok {
		return "an extension of " + m + ", which is not a message of the module: not compared"
	}
	switch kind {
	case "unused enum":
		return "no message field uses this enum: no data can change meaning"
	}
	return "accepted: no rule applies and no sampled message reads differently here"
}
