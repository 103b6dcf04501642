package protocompat

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	pb "github.com/evtool/evtool/format/protobuf"
)

// witness is a counterexample: a writer message, its encoding, and what
// the reader made of it.
type witness struct {
	// Encoding is "binary" or "json": which encoding of the writer message
	// the reader read.
	Encoding string `json:"encoding"`
	// Writer is the writer message in the JSON mapping; Hex its binary
	// encoding.
	Writer rawJSON `json:"writer"`
	Hex    string  `json:"hex"`
	// JSON is what the reader parsed, for the json encoding.
	JSON string `json:"json,omitempty"`
	// ReaderError is the reader's parse error; Reader its decoded message
	// in the JSON mapping; Changes the fields whose meaning changed.
	ReaderError string   `json:"readerError,omitempty"`
	Reader      rawJSON  `json:"reader,omitempty"`
	Changes     []change `json:"changes,omitempty"`
}

func (w *witness) raw() json.RawMessage {
	b, err := json.Marshal(w)
	if err != nil {
		panic(err) // every part is JSON by construction
	}
	return b
}

// summary is the one-line description of what the reader did.
func (w *witness) summary() string {
	if w.ReaderError != "" {
		return fmt.Sprintf("the reader fails to parse the %s encoding: %s", w.Encoding, w.ReaderError)
	}
	c := w.Changes[0]
	wj, _ := json.Marshal(c.Written)
	rj, _ := json.Marshal(c.Read)
	s := fmt.Sprintf("%s: written %s, read %s (%s)", c.Path, wj, rj, w.Encoding)
	if c.ReadAs != "" {
		s = fmt.Sprintf("written %s: %s, read %s: %s (%s)", c.Path, wj, c.ReadAs, rj, w.Encoding)
	}
	if c.Note != "" {
		s += ": " + c.Note
	}
	return s
}

// trialCost is what one trial costs the comparison's budget beyond its
// bytes: encoding, decoding and comparing even an empty message.
const trialCost = 256

// trial encodes one writer message and decodes it with the reader.
type trial struct {
	reader       protoreflect.MessageDescriptor
	lostIsChange bool
	// readerExt and writerExt are the sides' extensions; nil means none.
	readerExt, writerExt *extensions
	// spent, when set, adds up the bytes of the messages run: the
	// comparison's budget.
	spent *int
	// moves, when set, is shared by the comparison's trials.
	moves enumMoves
}

// run returns the witnesses of m: one per encoding whose reading differs.
func (t trial) run(m *dynamicpb.Message, withJSON bool) []*witness {
	bin, err := pb.EncodeBinary(m)
	if err != nil {
		return nil // not a message the writer can send (a required field unset)
	}
	if t.spent != nil {
		// The JSON text is about as long again as the binary; a trial
		// costs something however small its message.
		*t.spent += 2*len(bin) + trialCost
	}
	wj, jerr := pb.EncodeJSON(m)
	if jerr != nil {
		// A value the JSON mapping cannot write (a Timestamp out of its
		// range): the binary is still data the writer can send.
		wj = marshalLenient(m)
		withJSON = false
	}
	base := witness{Writer: rawJSON(wj), Hex: hex.EncodeToString(bin)}
	var out []*witness
	r := dynamicpb.NewMessage(t.reader)
	w := base
	w.Encoding = "binary"
	uo := t.binaryOptions()
	jo := protojson.UnmarshalOptions{DiscardUnknown: true, RecursionLimit: 200}
	if t.readerExt != nil {
		jo.Resolver = t.readerExt.types
	}
	if err := uo.Unmarshal(bin, r); err != nil {
		w.ReaderError = errText(err)
		out = append(out, &w)
	} else if cs := t.compare(m, r, false); len(cs) > 0 {
		w.Changes = cs
		w.Reader = marshalLenient(r)
		out = append(out, &w)
	}
	if !withJSON {
		return out
	}
	// JSON readers are assumed to ignore unknown keys (DiscardUnknown), as
	// any consumer that lets a schema evolve must.
	rj := dynamicpb.NewMessage(t.reader)
	j := base
	j.Encoding = "json"
	j.JSON = string(wj)
	if err := jo.Unmarshal(wj, rj); err != nil {
		j.ReaderError = errText(err)
		out = append(out, &j)
	} else if cs := t.compare(m, rj, true); len(cs) > 0 {
		j.Changes = cs
		j.Reader = marshalLenient(rj)
		out = append(out, &j)
	}
	return out
}

func (t trial) binaryOptions() proto.UnmarshalOptions {
	uo := proto.UnmarshalOptions{RecursionLimit: 200}
	if t.readerExt != nil {
		uo.Resolver = t.readerExt.types
	}
	return uo
}

// absent is the witness of a reader field the writer lacks (FORWARD: the
// newer writer removed it): m's binary encoding, which the reader reads
// with that field at its default.
func (t trial) absent(m *dynamicpb.Message, f *finding) *witness {
	bin, err := pb.EncodeBinary(m)
	if err != nil {
		return nil
	}
	w := &witness{Encoding: "binary", Writer: marshalLenient(m), Hex: hex.EncodeToString(bin)}
	r := dynamicpb.NewMessage(t.reader)
	if err := t.binaryOptions().Unmarshal(bin, r); err != nil {
		// The reader requires the field (proto-required-added too).
		w.ReaderError = errText(err)
		return w
	}
	leaf := f.path[len(f.path)-1]
	names := make([]string, len(f.path))
	for i, fd := range f.path {
		names[i] = string(fd.Name())
	}
	var read any
	if !leaf.IsList() && !leaf.IsMap() && leaf.Message() == nil {
		read = display(leaf, leaf.Default())
	}
	w.Reader = marshalLenient(r)
	w.Changes = []change{{Path: strings.Join(names, "."), Read: read,
		Note: fmt.Sprintf("the writer has no field %d: the reader reads the default, whatever the event meant", leaf.Number())}}
	return w
}

func (t trial) compare(w, r protoreflect.Message, json bool) []change {
	moves := t.moves
	if moves == nil {
		moves = enumMoves{}
	}
	c := comparer{lostIsChange: t.lostIsChange, json: json, readerExt: t.readerExt, writerExt: t.writerExt, moves: moves}
	c.messages(w, r, "", "", 0)
	return c.out
}

// marshalLenient renders what the reader decoded even when it is not
// valid (a string that is not UTF-8): the JSON mapping, or a note.
func marshalLenient(m proto.Message) rawJSON {
	b, err := pb.EncodeJSON(m)
	if err != nil {
		q, _ := json.Marshal("(" + errText(err) + ")")
		return rawJSON(q)
	}
	return rawJSON(b)
}

// explains returns the witness as proof of finding f, its changes cut to
// those at f's fields: a change at or under one of them, or at an
// ancestor whose shape changed as a whole (a message read as a map). A
// parse error proves f when it names f's field; for a message built for f
// from a minimal message (aim minimalAim: nothing else is set), always; for
// one built from a full sample (fullAim), when it names no field at all (a
// JSON syntax error at the changed value).
func explains(f *finding, w *witness, aim aim) (*witness, bool) {
	if f.jsonOnly && w.Encoding != "json" {
		return nil, false
	}
	if w.ReaderError != "" {
		if aim == minimalAim || mentions(w.ReaderError, f) || aim == fullAim && !strings.Contains(w.ReaderError, " field ") {
			return w, true
		}
		return nil, false
	}
	names := []string{}
	if len(f.path) > 0 {
		names = append(names, string(f.path[len(f.path)-1].FullName()))
	}
	for _, e := range f.extra {
		names = append(names, string(e.FullName()))
	}
	onPath := map[string]bool{}
	for _, fd := range f.path {
		onPath[string(fd.FullName())] = true
	}
	var hits []change
	for _, c := range w.Changes {
		hit := false
		for _, n := range names {
			if strings.Contains(c.key+"/", "/"+n+"/") {
				hit = true
			}
		}
		if last := c.key[strings.LastIndex(c.key, "/")+1:]; onPath[last] {
			hit = true
		}
		if hit {
			hits = append(hits, c)
		}
	}
	if len(hits) == 0 {
		return nil, false
	}
	cut := *w
	cut.Changes = hits
	return &cut, true
}

// aim says how a writer message was made: sampled, or built for one
// finding from a full sample or from a minimal message.
type aim int

const (
	sampledAim aim = iota
	fullAim
	minimalAim
)

// targeted builds writer messages aimed at f: a full sample with f's
// field set to each edge value of its type (or cleared), along its path.
func targeted(base func() *dynamicpb.Message, f *finding) []*dynamicpb.Message {
	if f.readerField != nil {
		// A field the reader requires: leave the writer's field of that
		// number (if any) unset.
		m := base()
		if parent := descend(m, f.path); parent != nil {
			if wf := parent.Descriptor().Fields().ByNumber(f.readerField.Number()); wf != nil {
				parent.Clear(wf)
			}
		}
		return []*dynamicpb.Message{m}
	}
	if len(f.path) == 0 || f.readerLeaf {
		return []*dynamicpb.Message{base()}
	}
	leaf := f.path[len(f.path)-1]
	var out []*dynamicpb.Message
	mk := func(set func(protoreflect.Message, protoreflect.FieldDescriptor)) {
		m := base()
		parent := descend(m, f.path[:len(f.path)-1])
		if parent == nil {
			return
		}
		set(parent, leaf)
		for _, e := range f.extra {
			if e != leaf && !parent.Has(e) {
				setAny(parent, e)
			}
		}
		out = append(out, m)
	}
	var vals []protoreflect.Value
	if f.value != nil && leaf.Enum() != nil {
		// The value the finding is about, alone: an enum's edge values
		// are all its values, and an enum of n values has up to n such
		// findings.
		vals = []protoreflect.Value{protoreflect.ValueOfEnum(f.value.Number())}
	} else {
		vals = pb.EdgeValues(leaf)
	}
	if leaf.IsMap() || leaf.Message() != nil {
		vals = nil
	}
	for _, v := range vals {
		mk(func(p protoreflect.Message, fd protoreflect.FieldDescriptor) {
			switch {
			case fd.IsList():
				l := p.Mutable(fd).List()
				l.Append(v)
				l.Append(v)
			default:
				p.Set(fd, v)
			}
		})
	}
	mk(func(p protoreflect.Message, fd protoreflect.FieldDescriptor) { p.Clear(fd) })
	mk(func(p protoreflect.Message, fd protoreflect.FieldDescriptor) {
		if fd.IsList() && !fd.IsMap() {
			l := p.Mutable(fd).List()
			for l.Len() < 2 {
				if fd.Message() != nil {
					l.Append(protoreflect.ValueOfMessage(pb.Sampler{}.Sample(fd.Message(), 1+l.Len())))
				} else {
					l.Append(pb.EdgeValues(fd)[l.Len()%len(pb.EdgeValues(fd))])
				}
			}
		} else {
			setAny(p, fd)
		}
	})
	return out
}

// sampledFor: paths into a map entry cannot be set directly; a few full
// samples (which fill maps) stand in.
func sampledFor(sample func(int) *dynamicpb.Message) []*dynamicpb.Message {
	var out []*dynamicpb.Message
	for i := 2; i < 5; i++ {
		out = append(out, sample(i))
	}
	return out
}

// descend walks path from m, creating messages (and first list elements)
// on the way; nil when the path crosses a map.
func descend(m protoreflect.Message, path []protoreflect.FieldDescriptor) protoreflect.Message {
	for _, fd := range path {
		switch {
		case fd.IsMap():
			// The path goes into the map's entry message, which has no
			// message of its own to set: sampled messages cover it.
			return nil
		case fd.IsList():
			l := m.Mutable(fd).List()
			if l.Len() == 0 {
				l.Append(l.NewElement())
			}
			m = l.Get(0).Message()
		default:
			m = m.Mutable(fd).Message()
		}
	}
	return m
}

// setAny gives a field a non-default value.
func setAny(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	switch {
	case fd.IsExtension() && fd.Message() != nil:
		// The sampler sets no extensions: sample the extension's message.
		v := protoreflect.ValueOfMessage(pb.Sampler{}.Sample(fd.Message(), 1))
		if fd.IsList() {
			m.Mutable(fd).List().Append(v)
		} else {
			m.Set(fd, v)
		}
	case fd.IsMap() || fd.IsList() || fd.Message() != nil:
		s := pb.Sampler{}.Sample(m.Descriptor(), 1)
		if s.Has(fd) {
			m.Set(fd, s.Get(fd))
		}
	case fd.Enum() != nil:
		// Not EdgeValues: it lists every value of the enum.
		vs := fd.Enum().Values()
		for i := 0; i < vs.Len(); i++ {
			if v := protoreflect.ValueOfEnum(vs.Get(i).Number()); normScalar(fd, v) != normScalar(fd, fd.Default()) {
				m.Set(fd, v)
				return
			}
		}
	default:
		for _, v := range pb.EdgeValues(fd) {
			if normScalar(fd, v) != normScalar(fd, fd.Default()) {
				m.Set(fd, v)
				return
			}
		}
	}
}

// mentions reports whether a parse error names one of f's descriptors:
// protobuf-go's errors name the field ("field t.M.a contains invalid
// UTF-8", "invalid value for int32 field a", "oneof t.M.o is already set").
func mentions(err string, f *finding) bool {
	var ds []protoreflect.Descriptor
	for _, d := range []protoreflect.Descriptor{f.reader, f.readerField} {
		if d != nil {
			ds = append(ds, d)
		}
	}
	if len(f.path) > 0 {
		ds = append(ds, f.path[len(f.path)-1])
	}
	for _, d := range ds {
		if fd, ok := d.(protoreflect.FieldDescriptor); ok && strings.Contains(err, " field "+fd.JSONName()+":") {
			return true
		}
		// protojson names a map key by its kind only ("invalid value for
		// int32 key: \"false\"").
		if fd, ok := d.(protoreflect.FieldDescriptor); ok && fd.ContainingMessage() != nil && fd.ContainingMessage().IsMapEntry() && fd.Number() == 1 &&
			strings.Contains(err, " "+fd.Kind().String()+" key: ") {
			return true
		}
		if strings.Contains(err, string(d.FullName())) || strings.Contains(err, " field "+string(d.Name())+":") || strings.Contains(err, " field "+string(d.Name())+" ") {
			return true
		}
	}
	return false
}

// errText is an error's text with protobuf-go's deliberately unstable
// spacing (it varies between a space and U+00A0 from build to build)
// made stable.
func errText(err error) string {
	return strings.ReplaceAll(err.Error(), "\u00a0", " ")
}
