package gogen

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/evtool/evtool/internal/jsonpos"
)

// ordered is a decoded JSON value that remembers member order, so that
// struct fields follow the order properties are written in the schema
// (compiled schemas keep properties in maps).
type ordered struct {
	keys  []string
	vals  []*ordered // objects
	arr   []*ordered // arrays
	obj   bool
	isArr bool
}

func parseOrdered(text []byte) *ordered {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	o, _ := readOrdered(dec)
	return o
}

func readOrdered(dec *json.Decoder) (*ordered, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &ordered{obj: true}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		o := &ordered{isArr: true}
		for dec.More() {
			v, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.arr = append(o.arr, v)
		}
		_, err := dec.Token()
		return o, err
	}
	return &ordered{}, nil
}

// at follows a JSON pointer (nil when it leads nowhere).
func (o *ordered) at(ptr string) *ordered {
	if ptr == "" || o == nil {
		return o
	}
	for _, tok := range jsonpos.Split(ptr) {
		if o == nil {
			return nil
		}
		switch {
		case o.obj:
			var next *ordered
			for i := len(o.keys) - 1; i >= 0; i-- { // the last duplicate wins, as in decoding
				if o.keys[i] == tok {
					next = o.vals[i]
					break
				}
			}
			o = next
		case o.isArr:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(o.arr) {
				return nil
			}
			o = o.arr[i]
		default:
			return nil
		}
	}
	return o
}

// memberKeys returns the member names of the object at ptr in file order.
func (o *ordered) memberKeys(ptr string) []string {
	x := o.at(ptr)
	if x == nil || !x.obj {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, k := range x.keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
