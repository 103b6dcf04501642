package main

import (
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/inventory"
	"github.com/evtool/evtool/format"
)

// Event types of the inventory catalog.
const (
	typeReceived = "com.example.inventory.stock.received"
	typeReserved = "com.example.inventory.stock.reserved"
	typeCounted  = "com.example.inventory.stock.counted"
)

// stockEvent is an event of any type, reduced to what the store keeps.
type stockEvent struct {
	ID, Type  string
	SKU       string
	Warehouse string
	Bin       string
	Quantity  int64
	// received: the receipt; reserved: the reservation
	Ref string
	// counted
	Revision int64
}

// decoder reads records with the embedded catalog.
type decoder struct {
	rd *exconsumer.Reader
}

func newDecoder() (*decoder, error) { return newDecoderFrom(inventory.Catalog, "examples/inventory") }

// newDecoderFrom reads with the catalog in fsys (evtool.yaml at its root).
func newDecoderFrom(fsys fs.FS, display string) (*decoder, error) {
	rd, err := exconsumer.NewReader(fsys, display)
	if err != nil {
		return nil, err
	}
	return &decoder{rd: rd}, nil
}

func (d *decoder) decode(r *kgo.Record) (stockEvent, error) {
	ev, err := d.rd.Read(r)
	if err != nil {
		return stockEvent{}, err
	}
	// The reader's schema is the newest version: Protobuf readers ignore
	// the writer's version, field numbers carry the meaning. Every type of
	// this catalog is Protobuf; the compiled schema decodes its own binary
	// encoding and JSON mapping, so the consumer needs no Protobuf type.
	reader := d.rd.Catalog.Lookup(ev.Type).Latest().Compiled
	if reader == nil {
		return stockEvent{}, &exconsumer.Reject{Kind: "unknown-type", Err: fmt.Errorf("event %q: %s has no compiled version to read it with", ev.ID, ev.Type)}
	}
	reject := func(err error) (stockEvent, error) {
		return stockEvent{}, &exconsumer.Reject{Kind: "invalid-data", Err: fmt.Errorf("event %q (%s v%d): %w", ev.ID, ev.Type, ev.Version.Number, err)}
	}
	ct := ev.ContentType
	if ct == "" {
		ct = format.ContentTypeJSON
	}
	value, err := reader.DecodeValue(ev.Data, ct)
	if err != nil {
		return reject(err)
	}
	se, err := parse(ev.Type, value)
	if err != nil {
		return reject(err)
	}
	se.ID, se.Type = ev.ID, ev.Type
	return se, nil
}

// parse reads a message in the JSON mapping (64-bit integers as strings,
// zero values left out). Fields of later versions (supplier,
// purchaseOrder, orderId, method) are not kept: an older producer's event
// has none, so the figures are the same whichever version wrote them.
func parse(typ string, value any) (stockEvent, error) {
	b, err := json.Marshal(value)
	if err != nil {
		return stockEvent{}, err
	}
	var v struct {
		SKU      string `json:"sku"`
		Location struct {
			Warehouse string `json:"warehouse"`
			Bin       string `json:"bin"`
		} `json:"location"`
		Quantity      int64  `json:"quantity,string"`
		ReceiptID     string `json:"receiptId"`
		ReservationID string `json:"reservationId"`
		Revision      int64  `json:"revision,string"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return stockEvent{}, err
	}
	e := stockEvent{SKU: v.SKU, Warehouse: v.Location.Warehouse, Bin: v.Location.Bin, Quantity: v.Quantity}
	switch typ {
	case typeReceived:
		e.Ref = v.ReceiptID
	case typeReserved:
		e.Ref = v.ReservationID
	case typeCounted:
		e.Revision = v.Revision
		if e.Revision < 1 {
			return e, fmt.Errorf("a count without revision")
		}
	default:
		return e, fmt.Errorf("unknown event type %q", typ)
	}
	if e.SKU == "" || e.Warehouse == "" || (typ != typeCounted && e.Ref == "") {
		return e, fmt.Errorf("no sku, location or id")
	}
	return e, nil
}
