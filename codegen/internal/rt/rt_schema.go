package rt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// evtSchema is a schema location the generator could not translate
// entirely: values there are also validated with the embedded catalog
// schemas (evtSchemaFiles) and santhosh-tekuri/jsonschema.
type evtSchema struct {
	loc  string
	once sync.Once
	s    *jsonschema.Schema
	err  error
}

var evtCompiler struct {
	sync.Mutex
	c *jsonschema.Compiler
}

// evtLoader serves the embedded catalog files, by file URL or by $id.
type evtLoader struct{}

func (evtLoader) Load(u string) (any, error) {
	if f, ok := evtSchemaIDs[u]; ok {
		u = f
	}
	text, ok := evtSchemaFiles[u]
	if !ok {
		return nil, fmt.Errorf("%s is not embedded in the generated code", u)
	}
	return jsonschema.UnmarshalJSON(strings.NewReader(text))
}

func (x *evtSchema) get() (*jsonschema.Schema, error) {
	x.once.Do(func() {
		evtCompiler.Lock()
		defer evtCompiler.Unlock()
		if evtCompiler.c == nil {
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			c.AssertFormat()
			c.UseLoader(evtLoader{})
			evtCompiler.c = c
		}
		x.s, x.err = evtCompiler.c.Compile(x.loc)
	})
	return x.s, x.err
}

// schema validates the value decoded since start against x.
func (d *evtDecoder) schema(x *evtSchema, start int) {
	if d.stop {
		return
	}
	s, err := x.get()
	if err != nil {
		d.fail("cannot compile the embedded schema: " + err.Error())
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.data[start:d.pos]))
	if err != nil {
		d.fail(err.Error())
		return
	}
	err = s.Validate(v)
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		d.fail(err.Error())
		return
	}
	base := d.pointer()
	n := 0
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") || strings.HasPrefix(msg, "allOf failed") {
			continue
		}
		d.failAt(base+u.InstanceLocation, msg)
		n++
	}
	if n == 0 {
		d.failAt(base, ve.Error())
	}
}
