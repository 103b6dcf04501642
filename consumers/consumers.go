// Package consumers reads consumer contracts: consumers/<name>.yaml beside
// a catalog's evtool.yaml says which event types, versions and fields (JSON
// pointers into the data's JSON form) one consumer reads. The loader is
// strict like the catalog's: every file is checked against an embedded
// meta-schema and every problem is a finding with its file and line.
package consumers

import (
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/yamldoc"
	"github.com/evtool/evtool/metaschema"
	"github.com/evtool/evtool/report"
)

// Dir is the directory of contracts, beside evtool.yaml.
const Dir = "consumers"

// RuleContract is the rule id of a malformed contract.
const RuleContract = "consumer-contract"

// MaxFiles bounds the contracts one catalog may hold: more is a mistake
// (or an attack on the gate's time), not a catalog.
const MaxFiles = 10000

// MaxFieldTokens bounds the reference tokens of all of a contract's
// pointers together: the fields tree and each projection grow with them
// (a recursive schema is unrolled along every distinct path), and no
// consumer reads a million distinct paths.
const MaxFieldTokens = 100_000

// Contract is one consumer's contract.
type Contract struct {
	// Name is the file's base name without .yaml: the consumer's name.
	Name string
	// File is the display path of the contract (as findings name it).
	File  string
	Owner string
	// Scenario is the replay scenario that runs the consumer, as written
	// (relative to the contract file's directory); "" when not given.
	Scenario string
	// Reads maps an event type to what the consumer reads of it.
	Reads map[string]Read

	// Lines of the owner and scenario keys (0 when absent).
	OwnerLine, ScenarioLine int
}

// Read is what a consumer reads of one event type.
type Read struct {
	// Versions the consumer decodes (its reader schemas), as listed.
	Versions []int
	// Fields are JSON pointers into the data's JSON form, as listed; a
	// pointer to an object reads all of it. Empty: the whole data (see
	// Pointers).
	Fields []string

	// Line is the line of the type's key; VersionLines[i] and
	// FieldLines[i] are the lines of Versions[i] and Fields[i].
	Line         int
	VersionLines []int
	FieldLines   []int
}

// Pointers returns the pointers the consumer reads: its fields, or the
// whole data ("") when the contract lists none.
func (r Read) Pointers() []string {
	if len(r.Fields) == 0 {
		return []string{""}
	}
	return r.Fields
}

// ReadsVersion reports whether the consumer decodes version n.
func (r Read) ReadsVersion(n int) bool {
	for _, v := range r.Versions {
		if v == n {
			return true
		}
	}
	return false
}

// Types returns the types the contract reads, sorted.
func (c *Contract) Types() []string {
	out := make([]string, 0, len(c.Reads))
	for t := range c.Reads {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// name is a consumer's name: the file name without .yaml.
var name = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]+([._-][A-Za-z0-9]+)*$`) })

// metaSchema compiles the embedded meta-schema once; the result is never
// written after.
var metaSchema = sync.OnceValues(func() (*metaschema.Schema, error) { return metaschema.Compile(metaschema.Consumer) })

// Load reads the contracts of the catalog whose evtool.yaml is in dir.
// A catalog without a consumers directory has no contracts (nil, nil).
// Problems come back as a *catalog.LoadError of findings with file and
// line, together with the contracts that did load.
func Load(dir string) ([]*Contract, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog directory %s: %w", dir, err)
	}
	defer root.Close()
	return LoadFS(root.FS(), dir)
}

// LoadFS reads the contracts under consumers/ in fsys, whose root holds
// evtool.yaml; display prefixes the paths in findings (the directory, or
// "REF:" for a git tree).
func LoadFS(fsys fs.FS, display string) ([]*Contract, error) {
	entries, err := fs.ReadDir(fsys, Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &catalog.LoadError{Findings: []report.Finding{fail(catalog.ShowPath(display, Dir), 0, "", "cannot read the contracts directory: "+pathErr(err))}}
	}
	var out []*Contract
	var problems []report.Finding
	count := 0
	for _, e := range entries {
		base := e.Name()
		file := catalog.ShowPath(display, path.Join(Dir, base))
		if e.IsDir() || strings.HasPrefix(base, ".") {
			continue
		}
		lower := strings.ToLower(base)
		if !strings.HasSuffix(base, ".yaml") {
			if strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".yaml") {
				problems = append(problems, fail(file, 0, "", fmt.Sprintf("%q looks like a contract but contracts are named <consumer>.yaml (lower-case .yaml)", base)))
			}
			continue
		}
		if count++; count > MaxFiles {
			problems = append(problems, fail(catalog.ShowPath(display, Dir), 0, "", fmt.Sprintf("more than %d contracts", MaxFiles)))
			break
		}
		data, err := format.ReadFile(fsys, path.Join(Dir, base), catalog.MaxFileSize)
		if err != nil {
			problems = append(problems, fail(file, 0, "", "cannot read: "+pathErr(err)))
			continue
		}
		c, err := Parse(file, data)
		var le *catalog.LoadError
		switch {
		case errors.As(err, &le):
			problems = append(problems, le.Findings...)
		case err != nil:
			return nil, err
		default:
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(problems) > 0 {
		return out, &catalog.LoadError{Findings: problems}
	}
	return out, nil
}

// Parse parses one contract. file is its display path; its base name
// without .yaml is the consumer's name. Problems come back as a
// *catalog.LoadError; any other error is the meta-schema's (a bug).
func Parse(file string, data []byte) (*Contract, error) {
	base := file[strings.LastIndexAny(file, `/\`)+1:]
	if len(data) > catalog.MaxFileSize {
		return nil, loadErr(fail(file, 0, "", fmt.Sprintf("file is larger than %d bytes", catalog.MaxFileSize)))
	}
	n, ok := strings.CutSuffix(base, ".yaml")
	if !ok || !name().MatchString(n) {
		return nil, loadErr(fail(file, 0, "", fmt.Sprintf("%q is not a contract name: use <consumer>.yaml, the consumer's name made of letters, digits, '.', '-' and '_'", base)))
	}
	doc, prob := yamldoc.Parse(data)
	if prob != nil {
		return nil, loadErr(fail(file, prob.Line, prob.Pointer, "malformed YAML: "+prob.Message))
	}
	meta, err := metaSchema()
	if err != nil {
		return nil, err
	}
	if probs := doc.Check(meta); len(probs) > 0 {
		var fs []report.Finding
		for _, p := range probs {
			f := fail(file, p.Line, p.Pointer, friendly(p.Message))
			f.Column = p.Column
			fs = append(fs, f)
		}
		return nil, &catalog.LoadError{Findings: fs}
	}
	// The meta-schema checked every shape below: the assertions hold.
	obj := doc.Value().(map[string]any)
	c := &Contract{Name: n, File: file, Reads: map[string]Read{}}
	if s, ok := obj["owner"].(string); ok {
		c.Owner, c.OwnerLine = s, doc.Line("/owner")
	}
	if s, ok := obj["scenario"].(string); ok {
		c.Scenario, c.ScenarioLine = s, doc.Line("/scenario")
	}
	var bad []report.Finding
	tokens := 0
	for typ, rv := range obj["reads"].(map[string]any) {
		ptr := "/reads/" + jsonpos.Escape(typ)
		if !catalog.ValidTypeName(typ) {
			bad = append(bad, fail(file, doc.Line(ptr), ptr, fmt.Sprintf("%q is not an event type name: use dot-separated segments of letters, digits, '-' and '_' (e.g. com.example.order.placed)", typ)))
			continue
		}
		r := Read{Line: doc.Line(ptr)}
		ro := rv.(map[string]any)
		for i, v := range ro["versions"].([]any) {
			// The meta-schema checked an integer in [1, 999999999], but
			// YAML may spell it 1e6 or 2.0: read the number, not the text.
			num, _ := new(big.Rat).SetString(fmt.Sprint(v))
			r.Versions = append(r.Versions, int(num.Num().Int64()))
			r.VersionLines = append(r.VersionLines, doc.Line(ptr+"/versions/"+strconv.Itoa(i)))
		}
		if fields, ok := ro["fields"].([]any); ok {
			for i, f := range fields {
				r.Fields = append(r.Fields, f.(string))
				r.FieldLines = append(r.FieldLines, doc.Line(ptr+"/fields/"+strconv.Itoa(i)))
				if tokens += strings.Count(f.(string), "/"); tokens > MaxFieldTokens {
					at := ptr + "/fields/" + strconv.Itoa(i)
					return nil, loadErr(fail(file, doc.Line(at), at, fmt.Sprintf("the contract's fields hold more than %d pointer tokens in all: list the objects a consumer reads rather than every path into them", MaxFieldTokens)))
				}
			}
		}
		c.Reads[typ] = r
	}
	if len(bad) > 0 {
		sort.Slice(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
		return nil, &catalog.LoadError{Findings: bad}
	}
	return c, nil
}

func fail(file string, line int, ptr, msg string) report.Finding {
	return report.Finding{Rule: RuleContract, Severity: report.SeverityError, File: file, Line: line, Pointer: ptr, Message: msg}
}

func loadErr(f report.Finding) error { return &catalog.LoadError{Findings: []report.Finding{f}} }

// friendly rewords the meta-schema's complaints a contract's author meets
// most.
func friendly(msg string) string {
	if k, ok := strings.CutPrefix(msg, "property "); ok && strings.HasSuffix(k, " is not allowed (additionalProperties)") {
		return "unknown key " + strings.TrimSuffix(k, " is not allowed (additionalProperties)") + ": a contract has owner, reads and scenario; each type under reads has versions and fields"
	}
	if strings.Contains(msg, "does not match pattern") && strings.Contains(msg, "^(/([^~]|~[01])*)*$") {
		return "not a JSON pointer: a field is \"\" (the whole data) or starts with / (e.g. /orderId, /total/amount); write ~ as ~0 and / inside a name as ~1"
	}
	return msg
}

func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ValidPointer reports whether s is a JSON pointer as contracts write
// them (RFC 6901: "" or /-separated tokens where ~ is only ~0 or ~1), the
// meta-schema's pattern for fields, so a pointer given on the command line
// is held to the rule a contract is.
func ValidPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
