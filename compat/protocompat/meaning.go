package protocompat

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/evtool/evtool/format/protobuf"
)

// A change is one place where the reader's message means something else
// than the writer's.
type change struct {
	// Path is where, in field names with list indexes ("items[0].price");
	// key lists the writer fields' full names on the way, to match the
	// rule that explains it.
	Path    string `json:"path"`
	key     string
	Written any `json:"written"`
	// ReadAs is the reader's field that holds the value, when it is not
	// the field of the writer's name (a name whose number moved).
	ReadAs string `json:"readAs,omitempty"`
	Read   any    `json:"read"`
	Note   string `json:"note,omitempty"`
}

// comparer compares a writer message with what the reader decoded from
// its encoding.
type comparer struct {
	// lostIsChange: a writer field the reader lacks (number not reserved)
	// is a change; false for FORWARD, where the older reader never knew it.
	lostIsChange bool
	json         bool
	readerExt    *extensions
	writerExt    *extensions
	// moves indexes the enum values whose names moved (enumMoved).
	moves enumMoves
	out   []change
}

func normScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if v.Bool() {
			return "1"
		}
		return "0"
	case protoreflect.EnumKind:
		return strconv.FormatInt(int64(v.Enum()), 10)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case protoreflect.StringKind:
		return "s:" + v.String()
	case protoreflect.BytesKind:
		return "s:" + string(v.Bytes())
	}
	return fmt.Sprint(v.Interface())
}

// display renders a value for a counterexample: numbers as digits,
// strings quoted, bytes in hex, messages in their JSON mapping.
func display(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch {
	case fd.IsMap():
		m := map[string]any{}
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			m[k.String()] = display(fd.MapValue(), mv)
			return true
		})
		return m
	case fd.IsList():
		l := v.List()
		out := make([]any, l.Len())
		for i := range out {
			out[i] = displayOne(fd, l.Get(i))
		}
		return out
	}
	return displayOne(fd, v)
}

func displayOne(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		b, err := pb.EncodeJSON(v.Message().Interface())
		if err != nil {
			return "(" + errText(err) + ")"
		}
		return rawJSON(b)
	case protoreflect.StringKind:
		if !utf8.ValidString(v.String()) {
			// JSON would show U+FFFD for each bad byte: show the bytes.
			return fmt.Sprintf("0x%x (not UTF-8)", v.String())
		}
		return v.String()
	case protoreflect.BytesKind:
		return fmt.Sprintf("0x%x", v.Bytes())
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return fmt.Sprintf("%s (%d)", ev.Name(), v.Enum())
		}
		return fmt.Sprintf("%d (not a value of %s)", v.Enum(), fd.Enum().FullName())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return normScalar(fd, v)
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// joinKey extends a change's key: the full names of the writer fields on
// its path, so that a rule about a field of a recursive message explains
// changes at every depth.
func joinKey(key string, fd protoreflect.FieldDescriptor) string {
	return key + "/" + string(fd.FullName())
}

func (c *comparer) messages(w, r protoreflect.Message, path, key string, depth int) {
	if depth > 64 {
		return
	}
	wfs := w.Descriptor().Fields()
	rfs := r.Descriptor().Fields()
	for i := 0; i < wfs.Len(); i++ {
		wf := wfs.Get(i)
		rf := rfs.ByNumber(wf.Number())
		if !w.Has(wf) && (rep(wf) || isMsg(wf)) && (rf == nil || !r.Has(rf)) {
			// Nothing written, nothing read: an empty list or map, or an
			// unset message, means the same to every reader field. Skipped
			// before the path is built, as most fields of a large sample
			// are unset.
			continue
		}
		p, k := joinPath(path, string(wf.Name())), joinKey(key, wf)
		if !c.json && w.Has(wf) {
			if moved := rfs.ByName(wf.Name()); moved != nil && moved.Number() != wf.Number() {
				c.out = append(c.out, c.renumbered(w, r, wf, moved, path, p, k))
				continue
			}
		}
		if rf == nil {
			if w.Has(wf) && c.lostIsChange && !r.Descriptor().ReservedRanges().Has(wf.Number()) {
				note := "vanished into the reader's unknown fields"
				if c.json {
					note = "dropped: the reader has no such field"
				}
				c.out = append(c.out, change{Path: p, key: k, Written: display(wf, w.Get(wf)), Read: nil, Note: note})
			}
			continue
		}
		c.field(w, r, wf, rf, p, k, depth)
	}
	if c.json {
		c.jsonOnlyFields(w, r, path, key)
	}
	// The writer's extensions, matched by number among the reader's (set
	// or not: an unset one reads as its default).
	if c.writerExt == nil {
		return
	}
	for _, wf := range c.writerExt.of(w.Descriptor().FullName()) {
		c.extension(w, r, wf, path, key, depth)
	}
}

func (c *comparer) extension(w, r protoreflect.Message, wf protoreflect.FieldDescriptor, path, key string, depth int) {
	{
		p, k := joinPath(path, "["+string(wf.FullName())+"]"), joinKey(key, wf)
		var rf protoreflect.FieldDescriptor
		if c.readerExt != nil {
			if x := c.readerExt.find(r.Descriptor().FullName(), wf.Number()); x != nil {
				rf = x
			}
		}
		if rf == nil {
			if c.lostIsChange && w.Has(wf) {
				c.out = append(c.out, change{Path: p, key: k, Written: display(wf, w.Get(wf)), Note: "vanished: the reader has no such extension"})
			}
			return
		}
		c.field(w, r, wf, rf, p, k, depth)
	}
}

func (c *comparer) field(w, r protoreflect.Message, wf, rf protoreflect.FieldDescriptor, p, k string, depth int) {
	wHas, rHas := w.Has(wf), r.Has(rf)
	wv, rv := w.Get(wf), r.Get(rf)
	differ := func(note string) {
		var read any
		if rHas || rf.Message() == nil {
			read = display(rf, rv)
		}
		if note == "" && !rHas && wHas && len(r.GetUnknown()) > 0 {
			note = "the reader did not recognise the bytes: they are in its unknown fields"
		}
		c.out = append(c.out, change{Path: p, key: k, Written: display(wf, wv), Read: read, Note: note})
	}
	if !c.json && wHas {
		if wn, rn, ok := c.moves.moved(wf, wv, rf); ok {
			differ(fmt.Sprintf("the reader's %s is number %d: code reads number %d as %s", wn.Name(), rn.Number(), wn.Number(), readName(rf, wn.Number())))
			if !wf.IsList() && !wf.IsMap() && wf.Enum().Values().ByNumber(wn.Number()) != wn {
				// An alias: the number's first name would show no change.
				c.out[len(c.out)-1].Written = fmt.Sprintf("%s (%d)", wn.Name(), wn.Number())
			}
			return
		}
	}
	if undeclared(rf, rv, rHas) {
		differ("the reader's enum is closed and does not declare the number: generated code moves it to unknown fields (dynamicpb keeps it)")
		return
	}
	if wf.Kind() == protoreflect.BytesKind && rf.Kind() == protoreflect.StringKind && notUTF8(rf, rv, rHas) {
		differ("read as a string that is not UTF-8: Java and C++ readers replace or reject it")
		return
	}
	if rf.Kind() == protoreflect.StringKind && pb.UTF8Validated(rf) && notUTF8(rf, rv, rHas) {
		// protobuf-go checks UTF-8 on fields, not on dynamicpb extensions
		// of an edition that validates; the specification rejects both.
		differ("read as a string the reader's schema requires to be UTF-8: its parse fails")
		return
	}
	// Both maps of messages with the same keys: compare value by value, so
	// that a change inside a value carries the value fields' names in its
	// key and the rule about that field (found once per message pair, at
	// another path perhaps) explains it.
	if wf.IsMap() && rf.IsMap() && isMsg(wf.MapValue()) && isMsg(rf.MapValue()) && c.mapValues(wf, rf, wv.Map(), rv.Map(), p, k, depth) {
		return
	}
	// Both messages, same cardinality: compare field by field.
	if isMsg(wf) && isMsg(rf) && rep(wf) == rep(rf) && wf.IsMap() == rf.IsMap() && !wf.IsMap() {
		if !rep(wf) {
			if !wHas && !rHas {
				return
			}
			if wHas != rHas {
				differ("")
				return
			}
			c.messages(wv.Message(), rv.Message(), p, k, depth+1)
			return
		}
		wl, rl := wv.List(), rv.List()
		if wl.Len() != rl.Len() {
			differ(fmt.Sprintf("%d elements written, %d read", wl.Len(), rl.Len()))
			return
		}
		for j := 0; j < wl.Len(); j++ {
			c.messages(wl.Get(j).Message(), rl.Get(j).Message(), fmt.Sprintf("%s[%d]", p, j), k, depth+1)
		}
		return
	}
	if !rep(wf) && !rep(rf) {
		if !wHas && !rHas && (isMsg(wf) || isMsg(rf)) {
			return
		}
		if canonOne(wf, wv, depth) != canonOne(rf, rv, depth) {
			differ("")
		}
		return
	}
	if canonList(w, wf, depth) != canonList(r, rf, depth) {
		differ("")
	}
}

// mapValues compares two maps of messages value by value when they hold
// the same keys (in meaning: int32 5 and int64 5 agree), and reports
// whether it did; other maps are compared whole, as entry lists.
func (c *comparer) mapValues(wf, rf protoreflect.FieldDescriptor, wm, rm protoreflect.Map, p, k string, depth int) bool {
	if wm.Len() != rm.Len() {
		return false
	}
	read := make(map[string]protoreflect.Value, rm.Len())
	rm.Range(func(mk protoreflect.MapKey, v protoreflect.Value) bool {
		read[normScalar(rf.MapKey(), mk.Value())] = v
		return true
	})
	type entry struct {
		key, shown string
		w, r       protoreflect.Value
	}
	es := make([]entry, 0, wm.Len())
	same := true
	wm.Range(func(mk protoreflect.MapKey, v protoreflect.Value) bool {
		key := normScalar(wf.MapKey(), mk.Value())
		rv, ok := read[key]
		es = append(es, entry{key, fmt.Sprint(mk.Interface()), v, rv})
		same = ok
		return ok
	})
	if !same {
		return false
	}
	sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
	for _, e := range es {
		c.messages(e.w.Message(), e.r.Message(), fmt.Sprintf("%s[%s]", p, e.shown), joinKey(k, wf.MapValue()), depth+1)
	}
	return true
}

// undeclared reports whether a closed enum field holds a number its enum
// does not declare. protobuf-go's dynamicpb keeps such numbers, where
// generated code (Go, Java, C++) moves them to unknown fields as the
// language guide specifies; the comparison follows the specification.
func undeclared(fd protoreflect.FieldDescriptor, v protoreflect.Value, has bool) bool {
	if has && fd.IsMap() {
		vd := fd.MapValue()
		if vd.Enum() == nil || !vd.Enum().IsClosed() {
			return false
		}
		found := false
		v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
			found = vd.Enum().Values().ByNumber(mv.Enum()) == nil
			return !found
		})
		return found
	}
	if !has || fd.Enum() == nil || !fd.Enum().IsClosed() {
		return false
	}
	vals := fd.Enum().Values()
	if fd.IsList() {
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if vals.ByNumber(l.Get(i).Enum()) == nil {
				return true
			}
		}
		return false
	}
	return vals.ByNumber(v.Enum()) == nil
}

func notUTF8(fd protoreflect.FieldDescriptor, v protoreflect.Value, has bool) bool {
	if !has || fd.IsMap() {
		return false
	}
	if fd.IsList() {
		for i := 0; i < v.List().Len(); i++ {
			if !utf8.ValidString(v.List().Get(i).String()) {
				return true
			}
		}
		return false
	}
	return !utf8.ValidString(v.String())
}

// rep: a repeated field or a map (protoreflect's IsList excludes maps).
func rep(fd protoreflect.FieldDescriptor) bool { return fd.Cardinality() == protoreflect.Repeated }

func isMsg(fd protoreflect.FieldDescriptor) bool { return fd.Message() != nil }

// canonList is a comparable rendering of a field as the list of values
// its encoding carries: a singular field is a list of one (none when
// unset), a map is the list of its entries in key order, as a repeated
// entry message with the same fields encodes them.
func canonList(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) string {
	var b strings.Builder
	b.WriteString("[")
	switch {
	case fd.IsMap():
		type kv struct{ k, s string }
		var es []kv
		m.Get(fd).Map().Range(func(mk protoreflect.MapKey, mv protoreflect.Value) bool {
			es = append(es, kv{normScalar(fd.MapKey(), mk.Value()),
				fmt.Sprintf("{1:%s,2:%s,}", canonField(fd.MapKey(), mk.Value(), depth), canonField(fd.MapValue(), mv, depth))})
			return true
		})
		sort.Slice(es, func(i, j int) bool { return es[i].k < es[j].k })
		for _, e := range es {
			fmt.Fprintf(&b, "%q,", e.s)
		}
	case fd.IsList():
		l := m.Get(fd).List()
		for i := 0; i < l.Len(); i++ {
			fmt.Fprintf(&b, "%q,", canonOne(fd, l.Get(i), depth))
		}
	case m.Has(fd):
		fmt.Fprintf(&b, "%q,", canonOne(fd, m.Get(fd), depth))
	}
	b.WriteString("]")
	return b.String()
}

// canonField renders one present field of a message (or map entry).
func canonField(fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) string {
	if fd.IsList() || fd.IsMap() {
		return "(list)" // only reached through canonOne, which lists them itself
	}
	return fmt.Sprintf("%q", canonOne(fd, v, depth))
}

// canonOne is a comparable rendering of one value in its meaning: numbers
// as digits whatever their type (int32 5 and int64 5 agree), enums as
// numbers, bools as 0/1, strings and bytes as their bytes, messages as
// their fields by number (implicit-presence scalars always, as a map entry
// carries them).
func canonOne(fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) string {
	if fd.Message() == nil {
		return normScalar(fd, v)
	}
	m := v.Message()
	if depth > 64 {
		return "…"
	}
	type part struct {
		n protoreflect.FieldNumber
		s string
	}
	var parts []part
	fs := m.Descriptor().Fields()
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		switch {
		case f.IsList() || f.IsMap():
			if m.Has(f) {
				parts = append(parts, part{f.Number(), canonList(m, f, depth+1)})
			}
		case m.Has(f) || !f.HasPresence():
			parts = append(parts, part{f.Number(), canonField(f, m.Get(f), depth+1)})
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
	var b strings.Builder
	b.WriteString("{")
	for _, p := range parts {
		fmt.Fprintf(&b, "%d:%s,", p.n, p.s)
	}
	if len(m.GetUnknown()) > 0 {
		fmt.Fprintf(&b, "?:%x", m.GetUnknown())
	}
	b.WriteString("}")
	return b.String()
}

// rawJSON keeps a JSON mapping as JSON inside a counterexample.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// jsonOnlyFields: reader fields set after parsing the writer's JSON that
// the writer has no field of that number for: a JSON key of another
// writer field landed there.
func (c *comparer) jsonOnlyFields(w, r protoreflect.Message, path, key string) {
	rfs := r.Descriptor().Fields()
	wfs := w.Descriptor().Fields()
	for i := 0; i < rfs.Len(); i++ {
		rf := rfs.Get(i)
		if !r.Has(rf) || wfs.ByNumber(rf.Number()) != nil {
			continue
		}
		// The key is the writer field whose JSON key the reader field
		// accepts, for explains to match the finding about it.
		k := key + "/"
		for j := 0; j < wfs.Len(); j++ {
			if wf := wfs.Get(j); wf.JSONName() == rf.JSONName() || wf.JSONName() == string(rf.Name()) {
				k = joinKey(key, wf)
			}
		}
		c.out = append(c.out, change{Path: joinPath(path, string(rf.Name())), key: k, Read: display(rf, r.Get(rf)),
			Note: "set from the JSON key of a writer field with another number; the binary leaves it unset"})
	}
}

// renumbered is the change of a writer field whose name the reader has
// at another number: the value, read by number, lands in the reader's
// field of that number (ReadAs) or in its unknown fields, while code that
// reads the name gets what the reader's field of the name holds.
func (c *comparer) renumbered(w, r protoreflect.Message, wf, moved protoreflect.FieldDescriptor, path, p, k string) change {
	ch := change{Path: p, key: k, Written: display(wf, w.Get(wf))}
	if rf := r.Descriptor().Fields().ByNumber(wf.Number()); rf != nil {
		ch.ReadAs = joinPath(path, string(rf.Name()))
		if r.Has(rf) || rf.Message() == nil {
			ch.Read = display(rf, r.Get(rf))
		}
		ch.Note = fmt.Sprintf("the reader's %s is number %d; its number %d is %s", moved.Name(), moved.Number(), wf.Number(), rf.Name())
		return ch
	}
	ch.ReadAs = p
	if r.Has(moved) {
		ch.Read = display(moved, r.Get(moved))
	}
	ch.Note = fmt.Sprintf("the reader's %s is number %d; it has no field %d: the value is in its unknown fields", moved.Name(), moved.Number(), wf.Number())
	return ch
}

// enumMoves indexes, by writer and reader enum, the writer's numbers
// one of whose names (aliases too) the reader has at another number:
// built once per enum pair, as an enum may have thousands of values and
// a sample thousands of enum values.
type enumMoves map[string]map[protoreflect.EnumNumber][2]protoreflect.EnumValueDescriptor

func (e enumMoves) of(we, re protoreflect.EnumDescriptor) map[protoreflect.EnumNumber][2]protoreflect.EnumValueDescriptor {
	key := string(we.FullName()) + "\x00" + string(re.FullName())
	if m, ok := e[key]; ok {
		return m
	}
	m := map[protoreflect.EnumNumber][2]protoreflect.EnumValueDescriptor{}
	vs := we.Values()
	for i := 0; i < vs.Len(); i++ {
		v := vs.Get(i)
		if r := re.Values().ByName(v.Name()); r != nil && r.Number() != v.Number() {
			if _, ok := m[v.Number()]; !ok {
				m[v.Number()] = [2]protoreflect.EnumValueDescriptor{v, r}
			}
		}
	}
	e[key] = m
	return m
}

// moved finds a value the writer holds one of whose names the reader's
// enum gives another number: the writer's value and the reader's of that
// name.
func (e enumMoves) moved(wf protoreflect.FieldDescriptor, wv protoreflect.Value, rf protoreflect.FieldDescriptor) (protoreflect.EnumValueDescriptor, protoreflect.EnumValueDescriptor, bool) {
	wd, rd := wf, rf
	if wf.IsMap() {
		if !rf.IsMap() {
			return nil, nil, false
		}
		wd, rd = wf.MapValue(), rf.MapValue()
	}
	if wd.Enum() == nil || rd.Enum() == nil {
		return nil, nil, false
	}
	m := e.of(wd.Enum(), rd.Enum())
	if len(m) == 0 {
		return nil, nil, false
	}
	var found [2]protoreflect.EnumValueDescriptor
	check := func(n protoreflect.EnumNumber) bool {
		if p, ok := m[n]; ok {
			found = p
			return false
		}
		return true
	}
	switch {
	case wf.IsMap():
		wv.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool { return check(v.Enum()) })
	case wf.IsList():
		for i := 0; i < wv.List().Len() && check(wv.List().Get(i).Enum()); i++ {
		}
	default:
		check(wv.Enum())
	}
	return found[0], found[1], found[0] != nil
}

// readName names what a reader's enum field makes of a number.
func readName(rf protoreflect.FieldDescriptor, n protoreflect.EnumNumber) string {
	if rf.IsMap() {
		rf = rf.MapValue()
	}
	if v := rf.Enum().Values().ByNumber(n); v != nil {
		return string(v.Name())
	}
	return "no value of its enum"
}
