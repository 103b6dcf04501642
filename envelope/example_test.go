package envelope_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evtool/evtool/envelope"
)

func ExampleDecodeJSON() {
	d, findings := envelope.DecodeJSON([]byte(`{"specversion":"1.0","id":"1","source":"/orders",
		"type":"com.example.order.placed","orderId":"o-1","data":{"orderId":"o-1","qty":2}}`))
	for _, f := range findings {
		fmt.Println(f.Severity, f.Rule, f.Pointer)
	}
	fmt.Println(d.Event.Type(), d.Data)
	// Output:
	// error ce-attribute-name /orderId
	// com.example.order.placed map[orderId:o-1 qty:2]
}

func ExampleReader() {
	in := `{"specversion":"1.0","id":"1","source":"/s","type":"t"}
{"specversion":"1.0","id":"2","source":"/s","type":"t","data":"` + strings.Repeat("x", 100) + `"}
{"specversion":"1.0","id":"3","source":"/s","type":"t"}
`
	r := envelope.NewReader(strings.NewReader(in), 100)
	for {
		it, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		if it.Err != nil {
			fmt.Println(it.Err)
			continue
		}
		d, _ := envelope.DecodeJSON(it.Raw)
		fmt.Printf("line %d: event %s\n", it.Line, d.Event.ID())
	}
	// Output:
	// line 1: event 1
	// line 2: event exceeds 100 bytes
	// line 3: event 3
}

func ExampleToRecord() {
	d, _ := envelope.DecodeJSON([]byte(`{"specversion":"1.0","id":"1","source":"/orders",
		"type":"com.example.order.placed","data":{"orderId":"o-1"}}`))
	r, err := envelope.ToRecord(context.Background(), &d.Event, envelope.ModeBinary, envelope.WithKeyFromData("/orderId"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range r.Headers {
		fmt.Printf("%s: %s\n", h.Key, h.Value)
	}
	fmt.Printf("key %s, value %s\n", r.Key, r.Value)

	back, findings, err := envelope.FromRecord(r)
	fmt.Println(back.Event.ID(), len(findings), err)
	// Output:
	// ce_id: 1
	// ce_source: /orders
	// ce_specversion: 1.0
	// ce_type: com.example.order.placed
	// key o-1, value {"orderId":"o-1"}
	// 1 0 <nil>
}
