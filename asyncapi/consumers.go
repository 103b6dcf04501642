package asyncapi

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/internal/jsonpos"
)

// receiveOperations adds, for each consumer contract and each type of the
// catalog it reads, a receive operation on the type's channel naming the
// versions it decodes (its messages) and, as x-evtool-fields, the JSON
// pointers it reads. channelOf gives a type's channel key.
func receiveOperations(cat *catalog.Catalog, ops *object, cs []*consumers.Contract, channelOf func(*catalog.EventType) string) {
	for _, c := range cs {
		for _, typ := range c.Types() {
			t := cat.Lookup(typ)
			if t == nil {
				continue // lint reports it
			}
			key := channelOf(t)
			if key == "" {
				continue
			}
			r := c.Reads[typ]
			chRef := "#/channels/" + jsonpos.Escape(key)
			var refs []any
			var versions []string
			for _, n := range r.Versions {
				if v := t.Version(n); v != nil {
					refs = append(refs, obj("$ref", chRef+"/messages/"+jsonpos.Escape(messageKey(t, v))))
					versions = append(versions, fmt.Sprintf("v%d", n))
				}
			}
			if len(refs) == 0 {
				continue
			}
			fields := make([]any, 0, len(r.Pointers()))
			for _, p := range r.Pointers() {
				fields = append(fields, p)
			}
			what := "all of the data"
			if len(r.Fields) > 0 {
				what = strings.Join(r.Fields, ", ")
			}
			op := obj(
				"action", "receive",
				"channel", obj("$ref", chRef),
				"title", c.Name+" receives "+t.Name,
				"summary", fmt.Sprintf("Consumer %s decodes %s with %s and reads %s (consumers/%s.yaml).", c.Name, t.Name, strings.Join(versions, ", "), what, c.Name),
				"messages", refs,
				"x-owner", nonEmpty(c.Owner),
				"x-evtool-consumer", c.Name,
				"x-evtool-fields", fields,
			)
			// Keys are the consumer and the type; one a type's own
			// operation already has gets a suffix, as topic-less channels do.
			opKey := "receive." + c.Name + "." + t.Name
			for {
				if _, taken := ops.Get(opKey); !taken {
					break
				}
				opKey += ".receive"
			}
			ops.Set(opKey, op)
		}
	}
}
