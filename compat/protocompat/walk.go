package protocompat

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
)

// finding is a rule's observation before the witness search proves it.
type finding struct {
	rule    string
	message string
	// writer and reader are the descriptors the rule is about (either may
	// be nil: a removed or added field).
	writer, reader protoreflect.Descriptor
	// path is the writer field path from the event message to the field;
	// also lists every writer field a oneof merge involves.
	path  []protoreflect.FieldDescriptor
	extra []protoreflect.FieldDescriptor
	// jsonOnly: the binary keeps its meaning, the JSON mapping does not.
	jsonOnly bool
	// readerPath, for a field only the reader has (required added).
	readerField protoreflect.FieldDescriptor
	// readerLeaf: path ends in a reader field the writer lacks (a field
	// the newer schema removed, in FORWARD).
	readerLeaf bool
	// value is the writer's enum value a finding is about.
	value   protoreflect.EnumValueDescriptor
	witness *witness
	// failsIn lists the encodings in which a message built for this
	// finding alone failed to parse.
	failsIn []string
}

type walker struct {
	dir  engine.Direction
	json bool
	// wx and rx are the writer's and the reader's extensions.
	wx, rx   *extensions
	seen     map[string]bool
	findings []*finding
}

func (w *walker) add(f *finding) {
	if f.jsonOnly && !w.json {
		return
	}
	w.findings = append(w.findings, f)
}

func extend(path []protoreflect.FieldDescriptor, fd protoreflect.FieldDescriptor) []protoreflect.FieldDescriptor {
	out := make([]protoreflect.FieldDescriptor, len(path), len(path)+1)
	copy(out, path)
	return append(out, fd)
}

func (w *walker) message(wm, rm protoreflect.MessageDescriptor, path []protoreflect.FieldDescriptor) {
	key := string(wm.FullName()) + "\x00" + string(rm.FullName())
	if w.seen[key] {
		return
	}
	w.seen[key] = true
	wf, rf := wm.Fields(), rm.Fields()
	for i := 0; i < wf.Len(); i++ {
		f := wf.Get(i)
		p := extend(path, f)
		if moved := rf.ByName(f.Name()); moved != nil && moved.Number() != f.Number() {
			w.add(&finding{rule: RuleFieldNumberChanged, writer: f, reader: moved, path: p,
				message: fmt.Sprintf("field %s is number %d in the writer and %d in the reader: code reads fields by name, and %s", f.Name(), f.Number(), moved.Number(), numberGoesTo(rf, f.Number()))})
		}
		r := rf.ByNumber(f.Number())
		if r == nil {
			if w.dir == engine.Backward && !rm.ReservedRanges().Has(f.Number()) {
				w.add(&finding{rule: RuleFieldRemovedUnreserved, writer: f, reader: rm, path: p,
					message: fmt.Sprintf("field %s = %d was removed and its number is not reserved in %s: old data lands in unknown fields, and a later field with that number would read it", f.Name(), f.Number(), rm.FullName())})
			}
			continue
		}
		w.field(f, r, p)
	}
	if w.dir == engine.Forward {
		// The older schema is the reader: its fields the newer one dropped
		// without reserving the number.
		for i := 0; i < rf.Len(); i++ {
			r := rf.Get(i)
			if wf.ByNumber(r.Number()) == nil && !wm.ReservedRanges().Has(r.Number()) {
				w.add(&finding{rule: RuleFieldRemovedUnreserved, writer: wm, reader: r, path: extend(path, r), readerLeaf: true,
					message: fmt.Sprintf("field %s = %d was removed and its number is not reserved in %s: this reader reads its default from every newer message, and would read a later field with that number as %s", r.Name(), r.Number(), wm.FullName(), r.Name())})
			}
		}
	}
	// Extensions are fields of the extended message too, matched by number.
	for _, f := range w.wx.of(wm.FullName()) {
		p := extend(path, f)
		r := w.rx.find(rm.FullName(), f.Number())
		if r == nil {
			if w.dir == engine.Backward {
				w.add(&finding{rule: RuleFieldRemovedUnreserved, writer: f, reader: rm, path: p,
					message: fmt.Sprintf("extension %s = %d of %s was removed: old data lands in unknown fields, and a later extension with that number would read it", f.FullName(), f.Number(), rm.FullName())})
			}
			continue
		}
		w.field(f, r, p)
	}
	if w.dir == engine.Forward {
		for _, r := range w.rx.of(rm.FullName()) {
			if w.wx.find(wm.FullName(), r.Number()) == nil {
				w.add(&finding{rule: RuleFieldRemovedUnreserved, writer: wm, reader: r, path: extend(path, r), readerLeaf: true,
					message: fmt.Sprintf("extension %s = %d of %s was removed: this reader reads its default from every newer message, and would read a later extension with that number as %s", r.FullName(), r.Number(), wm.FullName(), r.FullName())})
			}
		}
	}
	if w.json {
		w.jsonKeysMoved(wm, rm, path)
	}
	for i := 0; i < rf.Len(); i++ {
		r := rf.Get(i)
		if r.Cardinality() != protoreflect.Required {
			continue
		}
		f := wf.ByNumber(r.Number())
		if f == nil || f.Cardinality() != protoreflect.Required {
			w.add(&finding{rule: RuleRequiredAdded, writer: f, reader: r, path: path, readerField: r,
				message: fmt.Sprintf("the reader requires field %s = %d, which the writer may leave out: parsing fails", r.Name(), r.Number())})
		}
	}
	w.oneofs(wm, rm, path)
}

// oneofs finds reader oneofs whose members the writer can set together.
func (w *walker) oneofs(wm, rm protoreflect.MessageDescriptor, path []protoreflect.FieldDescriptor) {
	ros := rm.Oneofs()
	for i := 0; i < ros.Len(); i++ {
		o := ros.Get(i)
		if o.IsSynthetic() {
			continue
		}
		groups := map[string][]protoreflect.FieldDescriptor{}
		var order []string
		var all []protoreflect.FieldDescriptor
		for j := 0; j < o.Fields().Len(); j++ {
			f := wm.Fields().ByNumber(o.Fields().Get(j).Number())
			if f == nil {
				continue
			}
			g := "field:" + string(f.Name())
			if wo := f.ContainingOneof(); wo != nil && !wo.IsSynthetic() {
				g = "oneof:" + string(wo.Name())
			}
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], f)
			all = append(all, f)
		}
		if len(order) < 2 {
			continue
		}
		// What the writer can set together: a field alone, or one member
		// of a writer oneof (its members exclude each other already).
		parts := make([]string, len(order))
		for j, g := range order {
			fs := groups[g]
			names := make([]string, len(fs))
			for k, f := range fs {
				names[k] = string(f.Name())
			}
			parts[j] = names[0]
			if len(fs) > 1 {
				parts[j] = fmt.Sprintf("one of %s (its oneof %s)", strings.Join(names, ", "), fs[0].ContainingOneof().Name())
			}
		}
		// One finding per member, each at the member's path: any of them
		// can be the one the reader drops (which is last on the wire is
		// the writer's choice), so a consumer reading only one member
		// must be reached by a finding at its path. They share the
		// descriptors they are about (the first member, the reader's
		// oneof), hence one fingerprint: one approval covers the merge.
		msg := fmt.Sprintf("the writer can set %s together; the reader's oneof %s keeps only the last", strings.Join(parts, " and "), o.Name())
		for _, f := range all {
			w.add(&finding{rule: RuleOneofMerged, writer: all[0], reader: o, path: extend(path, f), extra: all, message: msg})
		}
	}
}

// wireGroup is the wire type a kind encodes with.
func wireGroup(k protoreflect.Kind) string {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return "varint"
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return "zigzag varint"
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return "fixed32"
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return "fixed64"
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return "length-delimited"
	case protoreflect.GroupKind:
		return "group"
	}
	return k.String()
}

func typeName(f protoreflect.FieldDescriptor) string {
	switch {
	case f.IsMap():
		return fmt.Sprintf("map<%s, %s>", typeName(f.MapKey()), typeName(f.MapValue()))
	case f.Message() != nil:
		return string(f.Message().FullName())
	case f.Enum() != nil:
		return string(f.Enum().FullName())
	}
	return f.Kind().String()
}

// listed is typeName with "repeated " before a list ("repeated t.E";
// a map is "map<K, V>").
func listed(f protoreflect.FieldDescriptor) string {
	if f.IsList() {
		return "repeated " + typeName(f)
	}
	return typeName(f)
}

func (w *walker) field(f, r protoreflect.FieldDescriptor, p []protoreflect.FieldDescriptor) {
	at := fmt.Sprintf("field %s = %d", r.Name(), r.Number())
	if f.IsExtension() {
		at = fmt.Sprintf("extension %s = %d", r.FullName(), r.Number())
		// The JSON mapping writes an extension as "[full.name]".
		if w.json && f.FullName() != r.FullName() {
			w.add(&finding{rule: RuleJSONNameChanged, writer: f, reader: r, path: p, jsonOnly: true,
				message: fmt.Sprintf("%s: the writer's JSON key \"[%s]\" is not the reader's \"[%s]\"", at, f.FullName(), r.FullName())})
		}
	} else if w.json && f.JSONName() != r.JSONName() && f.JSONName() != string(r.Name()) && !nameMoved(f, r) {
		accepted := fmt.Sprintf("neither the reader's %q nor %q", r.JSONName(), r.Name())
		if r.JSONName() == string(r.Name()) {
			accepted = fmt.Sprintf("not the reader's %q", r.Name())
		}
		w.add(&finding{rule: RuleJSONNameChanged, writer: f, reader: r, path: p, jsonOnly: true,
			message: fmt.Sprintf("%s: the writer's JSON key %q is %s", at, f.JSONName(), accepted)})
	}
	// Cardinality. protoreflect's IsList is false for maps; on the wire a
	// map is a repeated entry message.
	wRep, rRep := f.Cardinality() == protoreflect.Repeated, r.Cardinality() == protoreflect.Repeated
	switch {
	case f.IsMap() != r.IsMap() && wRep && rRep:
		w.add(&finding{rule: RuleJSONMapChanged, writer: f, reader: r, path: p, jsonOnly: true,
			message: fmt.Sprintf("%s: %s became %s: the binary is the same, the JSON is an object against an array", at, listed(f), listed(r))})
		if r.IsMap() {
			w.add(&finding{rule: RuleEntriesToMap, writer: f, reader: r, path: p,
				message: fmt.Sprintf("%s: repeated %s became %s: entries with the same key collapse to the last", at, typeName(f), typeName(r))})
		}
	case wRep && !rRep:
		w.add(&finding{rule: RuleRepeatedToSingular, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: repeated became singular: the reader keeps only the last element", at)})
	case !wRep && rRep:
		w.add(&finding{rule: RuleJSONSingularToRepeated, writer: f, reader: r, path: p, jsonOnly: true,
			message: fmt.Sprintf("%s: singular became repeated: the JSON value is not an array", at)})
	}
	wk, rk := f.Kind(), r.Kind()
	if wk == protoreflect.GroupKind {
		wk = protoreflect.MessageKind
		if rk != protoreflect.GroupKind {
			w.add(&finding{rule: RuleWireTypeChanged, writer: f, reader: r, path: p,
				message: fmt.Sprintf("%s: a group became %s: the reader cannot read start/end-group tags", at, typeName(r))})
			return
		}
		rk = protoreflect.MessageKind
	} else if rk == protoreflect.GroupKind {
		w.add(&finding{rule: RuleWireTypeChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: %s became a group", at, typeName(f))})
		return
	}
	if wk == rk {
		switch wk {
		case protoreflect.MessageKind:
			wm, rm := f.Message(), r.Message()
			// One wrapper for another (Int32Value → Int64Value): both
			// write their value as the bare scalar, so the value fields'
			// own rules decide.
			if wm.FullName() != rm.FullName() && (isJSONSpecial(wm) || isJSONSpecial(rm)) && !(isWrapper(wm) && isWrapper(rm)) {
				w.add(&finding{rule: RuleJSONWellKnownChanged, writer: f, reader: r, path: p, jsonOnly: true,
					message: fmt.Sprintf("%s: %s became %s, whose JSON form differs", at, wm.FullName(), rm.FullName())})
			}
			w.message(wm, rm, p)
		case protoreflect.EnumKind:
			w.enum(f, r, p)
		case protoreflect.StringKind:
			if !pb.UTF8Validated(f) && pb.UTF8Validated(r) {
				w.add(&finding{rule: RuleStringUTF8Validated, writer: f, reader: r, path: p,
					message: fmt.Sprintf("%s: the writer's string is not checked for UTF-8 (proto2, or utf8_validation = NONE), the reader's is: a string that is not UTF-8 fails to parse", at)})
			}
			w.defaults(f, r, p)
		default:
			w.defaults(f, r, p)
		}
		return
	}
	wg, rg := wireGroup(wk), wireGroup(rk)
	switch {
	case wk == protoreflect.MessageKind || rk == protoreflect.MessageKind:
		w.add(&finding{rule: RuleMessageKindChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: %s became %s", at, typeName(f), typeName(r))})
		return
	case wg != rg:
		w.add(&finding{rule: RuleWireTypeChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: %s (%s) became %s (%s): the reader does not recognise the bytes", at, typeName(f), wg, typeName(r), rg)})
		return
	}
	switch wg {
	case "varint":
		w.varint(f, r, p, at)
	case "zigzag varint":
		if wk == protoreflect.Sint64Kind {
			w.add(&finding{rule: RuleZigzagNarrowed, writer: f, reader: r, path: p,
				message: fmt.Sprintf("%s: sint64 became sint32: values beyond 32 bits are truncated", at)})
		}
	case "fixed32", "fixed64":
		w.add(&finding{rule: RuleFixedChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: %s became %s: the same bits read as another number", at, typeName(f), typeName(r))})
	case "length-delimited":
		if wk == protoreflect.BytesKind {
			w.add(&finding{rule: RuleBytesToString, writer: f, reader: r, path: p,
				message: fmt.Sprintf("%s: bytes became string: bytes that are not UTF-8 do not read as text", at)})
		} else {
			w.add(&finding{rule: RuleJSONTypeChanged, writer: f, reader: r, path: p, jsonOnly: true,
				message: fmt.Sprintf("%s: string became bytes: the JSON mapping writes text, the reader expects base64", at)})
		}
	}
	w.defaults(f, r, p)
}

// intRange is the set of integers a varint kind can write or read.
type intRange struct {
	lo, hi int64 // for unsigned kinds hi may be max: see unsignedTop
	// top: values up to 2^64-1 (uint64).
	top bool
}

// kindRange: the numbers a field can write or read.
func kindRange(f protoreflect.FieldDescriptor) intRange {
	switch f.Kind() {
	case protoreflect.BoolKind:
		return intRange{0, 1, false}
	case protoreflect.Int32Kind:
		return intRange{-1 << 31, 1<<31 - 1, false}
	case protoreflect.Int64Kind:
		return intRange{-1 << 63, 1<<63 - 1, false}
	case protoreflect.Uint32Kind:
		return intRange{0, 1<<32 - 1, false}
	case protoreflect.Uint64Kind:
		return intRange{0, 1<<63 - 1, true}
	case protoreflect.EnumKind:
		// An open enum field holds any int32, declared or not (a proto3
		// writer passes on numbers from a newer schema); a closed one
		// only its declared numbers.
		if f.Enum().IsClosed() {
			vs := f.Enum().Values()
			lo, hi := int64(vs.Get(0).Number()), int64(vs.Get(0).Number())
			for i := 1; i < vs.Len(); i++ {
				n := int64(vs.Get(i).Number())
				lo, hi = min(lo, n), max(hi, n)
			}
			return intRange{lo, hi, false}
		}
		return intRange{-1 << 31, 1<<31 - 1, false}
	}
	return intRange{}
}

func (w *walker) varint(f, r protoreflect.FieldDescriptor, p []protoreflect.FieldDescriptor, at string) {
	wr, rr := kindRange(f), kindRange(r)
	jsonKind := func(fd protoreflect.FieldDescriptor) string {
		switch fd.Kind() {
		case protoreflect.BoolKind:
			return "bool"
		case protoreflect.EnumKind:
			return "enum"
		}
		return "int"
	}
	if jk, rj := jsonKind(f), jsonKind(r); jk != rj && !(jk == "int" && rj == "enum") {
		w.add(&finding{rule: RuleJSONTypeChanged, writer: f, reader: r, path: p, jsonOnly: true,
			message: fmt.Sprintf("%s: %s became %s: the JSON mapping writes %s values the reader does not parse", at, typeName(f), typeName(r), jk)})
	}
	if r.Kind() == protoreflect.EnumKind && r.Enum().IsClosed() {
		if !closedCovers(f, r.Enum()) {
			w.add(&finding{rule: RuleClosedEnum, writer: f, reader: r, path: p,
				message: fmt.Sprintf("%s: %s became the closed enum %s: numbers it does not declare move to unknown fields", at, typeName(f), r.Enum().FullName())})
		}
		return
	}
	// A bool reads every nonzero varint as true: only writers of 0 and 1
	// (a closed enum of those numbers) fit.
	fits := wr.lo >= rr.lo && (rr.top || !wr.top && wr.hi <= rr.hi)
	if !fits {
		w.add(&finding{rule: RuleIntegerChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: %s became %s: some written values read as other numbers", at, typeName(f), typeName(r))})
	}
}

// closedCovers: every number the writer field can write is a value of the
// reader's closed enum.
func closedCovers(f protoreflect.FieldDescriptor, re protoreflect.EnumDescriptor) bool {
	if f.Kind() == protoreflect.EnumKind && f.Enum().IsClosed() {
		vs := f.Enum().Values()
		for i := 0; i < vs.Len(); i++ {
			if re.Values().ByNumber(vs.Get(i).Number()) == nil {
				return false
			}
		}
		return true
	}
	if f.Kind() == protoreflect.BoolKind {
		return re.Values().ByNumber(0) != nil && re.Values().ByNumber(1) != nil
	}
	return false
}

func (w *walker) enum(f, r protoreflect.FieldDescriptor, p []protoreflect.FieldDescriptor) {
	we, re := f.Enum(), r.Enum()
	at := fmt.Sprintf("field %s = %d", r.Name(), r.Number())
	if !we.IsClosed() && re.IsClosed() {
		w.add(&finding{rule: RuleClosedEnum, writer: f, reader: r, path: p,
			message: fmt.Sprintf("%s: the open enum %s became the closed enum %s: numbers the writer holds but neither declares move to unknown fields", at, we.FullName(), re.FullName())})
	}
	vs := we.Values()
	for i := 0; i < vs.Len(); i++ {
		v := vs.Get(i)
		// An alias (allow_alias) moved too: code that writes it writes
		// its number, read as whatever the reader names that number.
		if moved := re.Values().ByName(v.Name()); moved != nil && moved.Number() != v.Number() {
			now := "a number the reader's enum does not declare"
			if rv := re.Values().ByNumber(v.Number()); rv != nil {
				now = string(rv.Name())
			}
			w.add(&finding{rule: RuleEnumNumberChanged, writer: f, reader: r, path: p, value: v,
				message: fmt.Sprintf("%s: enum value %s is number %d in the writer's %s and %d in the reader's: %s written is read as %s", at, v.Name(), v.Number(), we.FullName(), moved.Number(), v.Name(), now)})
		}
		if vs.ByNumber(v.Number()) != v {
			// The JSON mapping writes the number's first name, checked
			// when that value is.
			continue
		}
		rv := re.Values().ByNumber(v.Number())
		if rv == nil {
			w.add(&finding{rule: RuleEnumValueMissing, writer: f, reader: r, path: p, jsonOnly: !re.IsClosed(), value: v,
				message: fmt.Sprintf("%s: enum value %s = %d is not a value of the reader's %s", at, v.Name(), v.Number(), re.FullName())})
			continue
		}
		// The reader parses any of its names (aliases included). A name
		// the reader has at another number is the break above: the JSON
		// keeps it.
		if byName := re.Values().ByName(v.Name()); byName == nil {
			w.add(&finding{rule: RuleJSONEnumNameChanged, writer: f, reader: r, path: p, jsonOnly: true, value: v,
				message: fmt.Sprintf("%s: enum value %d is %s in the writer and %s in the reader: the JSON mapping writes names", at, v.Number(), v.Name(), rv.Name())})
		}
	}
	w.defaults(f, r, p)
}

// defaults: a singular scalar the writer can leave out reads as the
// reader's default.
func (w *walker) defaults(f, r protoreflect.FieldDescriptor, p []protoreflect.FieldDescriptor) {
	if f.Cardinality() == protoreflect.Repeated || r.Cardinality() == protoreflect.Repeated || f.Message() != nil || r.Message() != nil || f.Cardinality() == protoreflect.Required {
		return
	}
	wd, rd := normScalar(f, f.Default()), normScalar(r, r.Default())
	if wd != rd {
		w.add(&finding{rule: RuleDefaultChanged, writer: f, reader: r, path: p,
			message: fmt.Sprintf("field %s = %d: an unset field means %s to the writer and %s to the reader", r.Name(), r.Number(), wd, rd)})
	}
}

// isJSONSpecial: well-known types whose JSON mapping is not an object of
// their fields (Empty's is: {}).
func isJSONSpecial(m protoreflect.MessageDescriptor) bool {
	switch m.FullName() {
	case "google.protobuf.Any", "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
		"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.NullValue",
		"google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value", "google.protobuf.UInt64Value",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.BoolValue", "google.protobuf.StringValue",
		"google.protobuf.BytesValue":
		return true
	}
	return false
}

// isWrapper: the wrappers.proto messages, whose JSON form is their value.
func isWrapper(m protoreflect.MessageDescriptor) bool {
	return m.ParentFile() != nil && m.ParentFile().Path() == "google/protobuf/wrappers.proto"
}

// jsonKeysMoved finds writer fields the reader lacks (removed, reserved,
// or not yet added) whose JSON key is the name or JSON name of another
// reader field: the JSON mapping puts the value into that field, where
// the binary leaves it unset (and a type mismatch fails the parse).
// Fields the reader has by number are checked by field.
func (w *walker) jsonKeysMoved(wm, rm protoreflect.MessageDescriptor, path []protoreflect.FieldDescriptor) {
	rf := rm.Fields()
	byKey := map[string]protoreflect.FieldDescriptor{}
	for i := 0; i < rf.Len(); i++ {
		r := rf.Get(i)
		byKey[string(r.Name())], byKey[r.JSONName()] = r, r
	}
	wf := wm.Fields()
	for i := 0; i < wf.Len(); i++ {
		f := wf.Get(i)
		if rf.ByNumber(f.Number()) != nil {
			continue
		}
		if r := rf.ByName(f.Name()); r != nil {
			// The same name at another number: the JSON keeps the meaning,
			// the binary does not (proto-field-number-changed).
			continue
		}
		if r := byKey[f.JSONName()]; r != nil {
			w.add(&finding{rule: RuleJSONNameChanged, writer: f, reader: r, path: extend(path, f), jsonOnly: true,
				message: fmt.Sprintf("field %s = %d: the reader has no field %d, and the writer's JSON key %q is the reader's field %s = %d: the JSON puts the value there, the binary does not", f.Name(), f.Number(), f.Number(), f.JSONName(), r.Name(), r.Number())})
		}
	}
}

// numberGoesTo says what the reader makes of a field number.
func numberGoesTo(rf protoreflect.FieldDescriptors, n protoreflect.FieldNumber) string {
	if r := rf.ByNumber(n); r != nil {
		return fmt.Sprintf("the reader reads number %d as %s", n, r.Name())
	}
	return fmt.Sprintf("the reader has no field %d: the value lands in unknown fields", n)
}

// nameMoved: the reader's message has the writer field's name at another
// number (proto-field-number-changed): the JSON key still lands on the
// field of that name.
func nameMoved(f, r protoreflect.FieldDescriptor) bool {
	if f.IsExtension() || r.ContainingMessage() == nil {
		return false
	}
	m := r.ContainingMessage().Fields().ByName(f.Name())
	return m != nil && m.Number() != f.Number()
}
