package protocompat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

// Every counterexample is true: its hex decodes with the writer's schema
// to the writer message shown, and the reader, decoding the encoding the
// witness names, fails exactly when and how the witness says.
// (The buf and Confluent corpus tests check theirs with checkReplays too.)
func TestCounterexamplesReplay(t *testing.T) {
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) {
			old, new := load(t, "old.proto", tc.old), load(t, "new.proto", tc.new)
			checkReplays(t, old, new, tc.dir, Compare(old, new, tc.dir, engine.Options{Profile: tc.profile}))
		})
	}
	t.Run("bench pair", func(t *testing.T) {
		old, new := benchPair(&testing.B{})
		for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
			checkReplays(t, old, new, dir, Compare(old, new, dir, engine.Options{}))
		}
	})
}

// checkReplays decodes every counterexample of fs again, with the writer's
// and the reader's schema, and fails where it does not show what happens.
func checkReplays(t *testing.T, old, new *pb.Schema, dir engine.Direction, fs []report.Finding) {
	t.Helper()
	{
		writer, reader := old, new
		if dir == engine.Forward {
			writer, reader = new, old
		}
		wx, rx := extensionsOf(writer.Desc), extensionsOf(reader.Desc)
		for _, f := range fs {
			if len(f.Counterexample) == 0 {
				continue
			}
			var w struct {
				Encoding, Hex, JSON, ReaderError string
				Writer, Reader                   json.RawMessage
				Changes                          []json.RawMessage
			}
			if err := json.Unmarshal(f.Counterexample, &w); err != nil {
				t.Fatalf("%s: %v", f.Rule, err)
			}
			bin, err := hex.DecodeString(w.Hex)
			if err != nil {
				t.Fatalf("%s: hex: %v", f.Rule, err)
			}
			wm := dynamicpb.NewMessage(writer.Message)
			if err := (proto.UnmarshalOptions{Resolver: wx.types}).Unmarshal(bin, wm); err != nil {
				t.Errorf("%s at %s: the writer does not decode its own hex %s: %v", f.Rule, f.Pointer, w.Hex, err)
				continue
			}
			if w.Writer[0] == '{' {
				shown, err := protojson.Marshal(wm)
				if err != nil {
					t.Errorf("%s at %s: writer JSON: %v", f.Rule, f.Pointer, err)
				} else if !jsonEqual(t, shown, w.Writer) {
					t.Errorf("%s at %s: hex %s decodes to %s, the witness shows %s", f.Rule, f.Pointer, w.Hex, shown, w.Writer)
				}
			}
			rm := dynamicpb.NewMessage(reader.Message)
			switch w.Encoding {
			case "binary":
				err = proto.UnmarshalOptions{Resolver: rx.types, RecursionLimit: 200}.Unmarshal(bin, rm)
			case "json":
				err = protojson.UnmarshalOptions{DiscardUnknown: true, Resolver: rx.types, RecursionLimit: 200}.Unmarshal([]byte(w.JSON), rm)
			default:
				t.Fatalf("%s: encoding %q", f.Rule, w.Encoding)
			}
			switch {
			case (err != nil) != (w.ReaderError != ""):
				t.Errorf("%s at %s: reader error %v, the witness says %q", f.Rule, f.Pointer, err, w.ReaderError)
			case err != nil && errText(err) != w.ReaderError:
				t.Errorf("%s at %s: reader error %q, the witness says %q", f.Rule, f.Pointer, errText(err), w.ReaderError)
			case err == nil && len(w.Changes) == 0:
				t.Errorf("%s at %s: the reader decodes without error and the witness shows no change", f.Rule, f.Pointer)
			case err == nil && len(w.Reader) > 0 && w.Reader[0] == '{':
				if got, err := pb.EncodeJSON(rm); err == nil && !jsonEqual(t, got, w.Reader) {
					t.Errorf("%s at %s: the reader decodes %s, the witness shows %s", f.Rule, f.Pointer, got, w.Reader)
				}
			}
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
