package gogen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/codegen/gocode"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// kind is the shape of a Go value generated for a schema node.
type kind int

const (
	kRaw         kind = iota // json.RawMessage: any JSON value
	kNever                   // json.RawMessage, but no value is valid
	kString                  // string
	kTime                    // time.Time (format date-time)
	kInt                     // int64
	kFloat                   // float64
	kBool                    // bool
	kNullOnly                // json.RawMessage holding null
	kEnum                    // named string type with constants
	kStruct                  // named struct
	kMap                     // map[string]T
	kSlice                   // []T
	kKindUnion               // named wrapper over json.RawMessage: several JSON types
	kBranchUnion             // named wrapper over json.RawMessage: oneOf/anyOf
	kSealed                  // named interface: oneOf with a const discriminator
	kNull                    // Null[T]
	kWrapper                 // a version whose data is not an object: struct{ Value T }
)

// kindSet is a set of JSON types; numbers are split into integers and
// numbers with a fraction.
type kindSet uint8

const (
	ksNull kindSet = 1 << iota
	ksBool
	ksInt
	ksFrac
	ksStr
	ksArr
	ksObj
	ksAll = ksNull | ksBool | ksInt | ksFrac | ksStr | ksArr | ksObj
	ksNum = ksInt | ksFrac
)

// node is a schema location seen as a value: its Go shape and the checks
// made where it is decoded.
type node struct {
	s        *jsonschema.Schema
	loc      string
	mask     kindSet // the JSON types this view of s covers
	kind     kind
	def      *def  // named kinds
	elem     *node // kSlice items, kMap values, kNull's non-null value
	fallback bool  // also validate against the embedded schema at s
	unions   []*unionCheck
	noEnum   bool // enum/const are checked by an enclosing kind union
	busy     bool
}

// unionCheck is a oneOf/anyOf that only validates (the value's Go type
// comes from the node's other keywords).
type unionCheck struct {
	one      bool
	branches []*node
	fn       string // name of the generated check function
}

// def is a named Go type.
type def struct {
	name  string
	loc   string
	s     *jsonschema.Schema
	kind  kind
	mask  kindSet
	file  string // output file key: an event type name, or "" for shared
	order int
	node  *node

	// struct
	fields     []*field
	closed     bool     // additionalProperties: false, checked natively
	extra      *node    // additionalProperties schema: map field
	keepExtra  bool     // open object: unknown members kept as json.RawMessage
	undeclared []string // required names without a properties entry
	required   []string // every required name, in order
	forbidden  []string // properties whose schema is false
	seals      []*def   // sealed interfaces this struct implements
	dataOf     string   // the XData interface, for version structs

	// enum
	enumValues []string
	enumNames  []string

	// sealed
	disc         string
	branches     []*def
	branchValues []string

	// kind union: one view per JSON type group
	views []*node
	// branch union
	options     []*node
	optionNames []string
	one         bool

	// wrapper
	inner *node
}

type field struct {
	name     string
	json     string
	required bool
	n        *node
	ptr      bool    // *T (optional, or a required struct on a cycle)
	constRaw *string // required const: no field, written as this JSON
	doc      string
}

// assertionsOf lists the keywords of s that are not annotations, by name.
func assertionsOf(s *jsonschema.Schema) []string {
	var kw []string
	add := func(ok bool, name string) {
		if ok {
			kw = append(kw, name)
		}
	}
	add(s.Bool != nil, "boolean schema")
	add(s.Ref != nil, "$ref")
	add(s.RecursiveRef != nil, "$recursiveRef")
	add(s.DynamicRef != nil, "$dynamicRef")
	add(s.Types != nil && !s.Types.IsEmpty(), "type")
	add(s.Enum != nil, "enum")
	add(s.Const != nil, "const")
	add(s.Not != nil, "not")
	add(len(s.AllOf) > 0, "allOf")
	add(len(s.AnyOf) > 0, "anyOf")
	add(len(s.OneOf) > 0, "oneOf")
	add(s.If != nil, "if")
	add(s.Then != nil, "then")
	add(s.Else != nil, "else")
	add(s.Format != nil, "format")
	add(s.MaxProperties != nil, "maxProperties")
	add(s.MinProperties != nil, "minProperties")
	add(len(s.Required) > 0, "required")
	add(s.PropertyNames != nil, "propertyNames")
	add(len(s.Properties) > 0, "properties")
	add(len(s.PatternProperties) > 0, "patternProperties")
	add(s.AdditionalProperties != nil, "additionalProperties")
	add(len(s.Dependencies) > 0, "dependencies")
	add(len(s.DependentRequired) > 0, "dependentRequired")
	add(len(s.DependentSchemas) > 0, "dependentSchemas")
	add(s.UnevaluatedProperties != nil, "unevaluatedProperties")
	add(s.MinItems != nil, "minItems")
	add(s.MaxItems != nil, "maxItems")
	add(s.UniqueItems, "uniqueItems")
	add(s.Contains != nil, "contains")
	add(s.MinContains != nil, "minContains")
	add(s.MaxContains != nil, "maxContains")
	add(s.Items != nil, "items")
	add(s.AdditionalItems != nil, "additionalItems")
	add(len(s.PrefixItems) > 0, "prefixItems")
	add(s.Items2020 != nil, "items")
	add(s.UnevaluatedItems != nil, "unevaluatedItems")
	add(s.MinLength != nil, "minLength")
	add(s.MaxLength != nil, "maxLength")
	add(s.Pattern != nil, "pattern")
	add(s.ContentEncoding != nil, "contentEncoding")
	add(s.ContentMediaType != nil, "contentMediaType")
	add(s.ContentSchema != nil, "contentSchema")
	add(s.Maximum != nil, "maximum")
	add(s.Minimum != nil, "minimum")
	add(s.ExclusiveMaximum != nil, "exclusiveMaximum")
	add(s.ExclusiveMinimum != nil, "exclusiveMinimum")
	add(s.MultipleOf != nil, "multipleOf")
	add(len(s.Extensions) > 0, "extension keywords")
	return kw
}

// nativeFormats are the formats generated code checks itself; the checks
// follow santhosh-tekuri/jsonschema exactly.
var nativeFormats = map[string]string{
	"date-time":     "evtParseDateTime",
	"date":          "evtIsDate",
	"uuid":          "evtIsUUID",
	"email":         "evtIsEmail",
	"uri":           "evtIsURI",
	"iri":           "evtIsURI",
	"uri-reference": "evtIsURIReference",
	"iri-reference": "evtIsURIReference",
	"ipv4":          "evtIsIPV4",
	"ipv6":          "evtIsIPV6",
	"hostname":      "evtIsHostname",
}

// untranslated lists the keywords of s that generated code does not check
// itself.
func untranslated(s *jsonschema.Schema) []string {
	var kw []string
	add := func(ok bool, name string) {
		if ok {
			kw = append(kw, name)
		}
	}
	add(s.Ref != nil, "$ref next to other keywords")
	add(s.RecursiveRef != nil, "$recursiveRef")
	add(s.DynamicRef != nil, "$dynamicRef")
	add(s.Not != nil, "not")
	add(len(s.AllOf) > 0, "allOf")
	add(s.If != nil || s.Then != nil || s.Else != nil, "if/then/else")
	if s.Format != nil {
		add(nativeFormats[s.Format.Name] == "", "format "+strconv.Quote(s.Format.Name))
	}
	add(s.PropertyNames != nil, "propertyNames")
	add(len(s.PatternProperties) > 0, "patternProperties")
	add(len(s.Dependencies) > 0, "dependencies")
	add(len(s.DependentRequired) > 0, "dependentRequired")
	add(len(s.DependentSchemas) > 0, "dependentSchemas")
	add(s.UnevaluatedProperties != nil, "unevaluatedProperties")
	add(s.Contains != nil, "contains")
	add(s.MinContains != nil || s.MaxContains != nil, "minContains/maxContains")
	if _, ok := s.Items.([]*jsonschema.Schema); ok {
		add(true, "items (array form)")
	}
	add(s.AdditionalItems != nil, "additionalItems")
	add(len(s.PrefixItems) > 0, "prefixItems")
	add(s.UnevaluatedItems != nil, "unevaluatedItems")
	add(s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil, "content assertions")
	add(len(s.Extensions) > 0, "extension keywords")
	return kw
}

// isAlias reports whether s only refers to another schema: a $ref, or an
// allOf of one schema, with nothing but annotations beside it.
func isAlias(s *jsonschema.Schema) (*jsonschema.Schema, bool) {
	kw := assertionsOf(s)
	if len(kw) != 1 {
		return nil, false
	}
	switch {
	case s.Ref != nil:
		return s.Ref, true
	case len(s.AllOf) == 1:
		return s.AllOf[0], true
	}
	return nil, false
}

// resolveAlias follows aliases; a cycle of aliases resolves to its start.
func resolveAlias(s *jsonschema.Schema) *jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	for {
		t, ok := isAlias(s)
		if !ok || seen[t] {
			return s
		}
		seen[s] = true
		s = t
	}
}

// kindsOf returns the JSON types a value valid under s can have (a
// superset: keywords that only restrict further are ignored).
func kindsOf(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) kindSet {
	if s.Bool != nil {
		if *s.Bool {
			return ksAll
		}
		return 0
	}
	if seen[s] {
		return ksAll
	}
	seen[s] = true
	defer delete(seen, s)
	k := ksAll
	if s.Types != nil && !s.Types.IsEmpty() {
		k = 0
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				k |= ksNull
			case "boolean":
				k |= ksBool
			case "integer":
				k |= ksInt
			case "number":
				k |= ksNum
			case "string":
				k |= ksStr
			case "array":
				k |= ksArr
			case "object":
				k |= ksObj
			}
		}
	}
	if s.Const != nil {
		k &= kindOfValue(*s.Const)
	}
	if s.Enum != nil {
		var e kindSet
		for _, v := range s.Enum.Values {
			e |= kindOfValue(v)
		}
		k &= e
	}
	if s.Ref != nil {
		k &= kindsOf(s.Ref, seen)
	}
	for _, a := range s.AllOf {
		k &= kindsOf(a, seen)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(list) == 0 {
			continue
		}
		var u kindSet
		for _, b := range list {
			u |= kindsOf(b, seen)
		}
		k &= u
	}
	return k
}

func kindOfValue(v any) kindSet {
	switch x := v.(type) {
	case nil:
		return ksNull
	case bool:
		return ksBool
	case string:
		return ksStr
	case []any:
		return ksArr
	case map[string]any:
		return ksObj
	case json.Number:
		if _, st := gocode.RuntimeParseIntLit(string(x)); st != 1 {
			return ksInt
		}
		return ksFrac
	case float64:
		if x == float64(int64(x)) {
			return ksInt
		}
		return ksFrac
	}
	return ksAll
}

// hasShapeKeywords reports whether s says anything about a value besides
// a oneOf/anyOf (and annotations).
func hasShapeKeywords(s *jsonschema.Schema) bool {
	for _, kw := range assertionsOf(s) {
		if kw != "oneOf" && kw != "anyOf" {
			return true
		}
	}
	return false
}

// isNullOnly reports whether s accepts exactly null.
func isNullOnly(s *jsonschema.Schema) bool {
	s = resolveAlias(s)
	kw := assertionsOf(s)
	switch {
	case len(kw) == 1 && kw[0] == "type":
		return kindsOf(s, map[*jsonschema.Schema]bool{}) == ksNull
	case len(kw) == 1 && kw[0] == "const":
		return *s.Const == nil
	case len(kw) == 1 && kw[0] == "enum":
		return len(s.Enum.Values) == 1 && s.Enum.Values[0] == nil
	}
	return false
}

// constString returns the string s pins a value to (const, or an enum of
// one string).
func constString(s *jsonschema.Schema) (string, bool) {
	s = resolveAlias(s)
	if s.Const != nil {
		str, ok := (*s.Const).(string)
		return str, ok
	}
	if s.Enum != nil && len(s.Enum.Values) == 1 {
		str, ok := s.Enum.Values[0].(string)
		return str, ok
	}
	return "", false
}

// discriminator finds a property that every branch requires with a
// distinct constant string, which makes a oneOf/anyOf a tagged union.
func discriminator(branches []*jsonschema.Schema) (string, []string, bool) {
	if len(branches) < 2 {
		return "", nil, false
	}
	var cands []string
	for i, b := range branches {
		b = resolveAlias(b)
		if b.Bool != nil || b.Types == nil || kindsOf(b, map[*jsonschema.Schema]bool{}) != ksObj {
			return "", nil, false
		}
		var names []string
		for _, r := range b.Required {
			if p := b.Properties[r]; p != nil {
				if _, ok := constString(p); ok {
					names = append(names, r)
				}
			}
		}
		if i == 0 {
			cands = names
			continue
		}
		var keep []string
		for _, c := range cands {
			for _, n := range names {
				if c == n {
					keep = append(keep, c)
					break
				}
			}
		}
		cands = keep
	}
	sort.Strings(cands)
	for _, c := range cands {
		vals := make([]string, len(branches))
		seen := map[string]bool{}
		distinct := true
		for i, b := range branches {
			v, _ := constString(resolveAlias(b).Properties[c])
			if seen[v] {
				distinct = false
				break
			}
			seen[v] = true
			vals[i] = v
		}
		if distinct {
			return c, vals, true
		}
	}
	return "", nil, false
}

// ratDecimal writes a rational that came from a JSON number as an exact
// decimal literal.
func ratDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// the denominator divides 10^n for some n
	d := new(big.Int).Set(r.Denom())
	n := 0
	ten := big.NewInt(10)
	for d.Cmp(big.NewInt(1)) != 0 && n < 1100 {
		n++
		g := new(big.Int).GCD(nil, nil, d, ten)
		if g.Cmp(big.NewInt(1)) == 0 {
			break
		}
		d.Quo(d, g)
	}
	s := r.FloatString(n)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// jsonText renders a decoded schema value (const, enum) as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
