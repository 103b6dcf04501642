package jsonvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{json.Number("1"), json.Number("1.0"), true},
		{json.Number("1"), 1.0, true},
		{json.Number("1e2"), int64(100), true},
		{json.Number("0.1"), 0.1, false}, // float64 0.1 is not exactly 1/10
		{map[string]any{"a": []any{json.Number("1"), "x"}}, map[string]any{"a": []any{1, "x"}}, true},
		{map[string]any{"a": 1}, map[string]any{"b": 1}, false},
		{[]any{1, 2}, []any{2, 1}, false},
		{nil, nil, true},
		{nil, false, false},
		{"1", json.Number("1"), false},
		{true, true, true},
		{math.NaN(), math.NaN(), false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		in   string
		want json.Number
	}{
		{"1e2", "100"}, {"1.50", "1.5"}, {"-0.0", "0"}, {"2.5e-3", "0.0025"}, {"10/3", "3.3333333333333333333333333333333333333333"},
	}
	for _, tt := range tests {
		r, _ := new(big.Rat).SetString(tt.in)
		if got := Number(r); got != tt.want {
			t.Errorf("Number(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeAndCopy(t *testing.T) {
	in := map[string]any{"a": []any{1.5, int64(2), uint8(3), float32(0.5), "s", nil, true}, "b": json.Number("7")}
	want := map[string]any{"a": []any{json.Number("1.5"), json.Number("2"), json.Number("3"), json.Number("0.5"), "s", nil, true}, "b": json.Number("7")}
	if d := cmp.Diff(want, Normalize(in)); d != "" {
		t.Error(d)
	}
	cp := DeepCopy(in).(map[string]any)
	cp["a"].([]any)[0] = "changed"
	if in["a"].([]any)[0] != 1.5 {
		t.Error("DeepCopy shares slices")
	}
}

func TestMarshalKeepsHTML(t *testing.T) {
	raw := json.RawMessage(`{"a<b>&":"<x>"}`)
	for _, tt := range []struct {
		v      any
		indent string
		want   string
	}{
		{map[string]any{"a<b>&": "<x>"}, "", `{"a<b>&":"<x>"}`},
		{raw, "", `{"a<b>&":"<x>"}`},
		{[]any{1, "&"}, "  ", "[\n  1,\n  \"&\"\n]"},
	} {
		b, err := Marshal(tt.v, tt.indent)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.v, b, err, tt.want)
		}
	}
}
