// Package jsonorder holds JSON values that keep the order of object keys
// as written, for output that keeps the order of keywords as schema
// authors wrote them and is the same bytes on every run:
//
//	*Object, []any, string, json.Number, bool, nil
package jsonorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that remembers the order of its keys.
type Object struct {
	Keys []string
	Vals map[string]any
}

// New is an empty Object.
func New() *Object { return &Object{Vals: map[string]any{}} }

// Set sets k to v (an int as a json.Number), a new key after the others.
func (o *Object) Set(k string, v any) {
	if n, ok := v.(int); ok {
		v = json.Number(fmt.Sprint(n))
	}
	if _, ok := o.Vals[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Vals[k] = v
}

// Get is the value of k.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.Vals[k]
	return v, ok
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys) }

// Decode decodes JSON text into ordered values (numbers as json.Number).
// Duplicate keys keep the last value: the text comes from the catalog,
// whose strict decoder has already refused them.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := New()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// Write writes v indented by two spaces per level, its first line
// unindented and the others after indent; HTML characters are not
// escaped.
func Write(b *bytes.Buffer, v any, indent string) error {
	switch t := v.(type) {
	case *Object:
		if t.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		inner := indent + "  "
		for i, k := range t.Keys {
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(": ")
			if err := Write(b, t.Vals[k], inner); err != nil {
				return err
			}
			if i < len(t.Keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		inner := indent + "  "
		for i, e := range t {
			b.WriteString(inner)
			if err := Write(b, e, inner); err != nil {
				return err
			}
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("jsonorder: cannot encode %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}
