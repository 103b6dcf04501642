package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/replay"
)

// The printed contract parses back to what infer found, whatever the
// type names and pointers hold, and nothing in it acts on a terminal.
func TestInferredContractParses(t *testing.T) {
	inf := &replay.Inference{
		Read: []replay.Field{
			{Type: "com.example.order.paid", Pointer: "/amount/amountMinor"},
			{Type: "com.example.order.paid", Pointer: "/a~1b"},
			{Type: "com.example.weird", Pointer: "/: [x], #y"},
			{Type: "com.example.weird", Pointer: "/\u202eevil\x1b[31m"},
		},
		Unresolved: []replay.Field{{Type: "com.example.order.paid", Pointer: "/-dash"}},
		Versions:   map[string][]int{"com.example.order.paid": {1, 2}, "com.example.weird": {3}},
		Fields:     make([]replay.Field, 9),
		Runs:       7,
	}
	text := inferredContract("s\n::error::x.yaml", inf)
	if strings.Contains(text, "\x1b") || strings.Contains(text, "\u202e") || strings.Contains(text, "\n::") {
		t.Fatalf("raw control characters or a CI command in:\n%s", text)
	}
	c, err := consumers.Parse("inferred.yaml", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	paid := c.Reads["com.example.order.paid"]
	if !slices.Equal(paid.Versions, []int{1, 2}) || !slices.Equal(paid.Fields, []string{"/-dash", "/amount/amountMinor", "/a~1b"}) {
		t.Fatalf("paid: %+v\n%s", paid, text)
	}
	weird := c.Reads["com.example.weird"]
	if !slices.Equal(weird.Fields, []string{"/: [x], #y", "/\u202eevil\x1b[31m"}) {
		t.Fatalf("weird: %+v\n%s", weird, text)
	}
}
