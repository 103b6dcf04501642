package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/payments"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/registry"
)

// Event types of the payments catalog.
const (
	typeAuthorized = "com.example.payment.authorized"
	typeCaptured   = "com.example.payment.captured"
	typeRefunded   = "com.example.payment.refunded"
)

// money is com.example.payments.Money in Avro's JSON encoding: the
// decimal's bytes as a string of code points 0-255.
type money struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// minor is the decimal(12, 2) as an integer number of minor units: its
// unscaled value, big-endian two's complement.
func (m money) minor() (int64, error) {
	b := make([]byte, 0, len(m.Amount))
	for _, r := range m.Amount {
		if r > 0xff {
			return 0, fmt.Errorf("decimal byte %U out of range", r)
		}
		b = append(b, byte(r))
	}
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if !v.IsInt64() {
		return 0, fmt.Errorf("decimal out of range")
	}
	return v.Int64(), nil
}

// paymentEvent is an event of any type in its newest version's layout,
// reduced to what the ledger keeps.
type paymentEvent struct {
	ID, Type  string
	Version   int // the writer's version
	PaymentID string
	AccountID string
	Sequence  int64
	// authorized
	AmountMinor int64
	Currency    string
	Method      string
	// captured
	FeeBasisPoints int64
	// refunded
	RefundID string
}

// decoder reads records with the embedded catalog: each writer version is
// resolved to its type's newest version (the reader).
type decoder struct {
	rd       *exconsumer.Reader
	resolved map[*registry.Version]*avro.Resolved
}

func newDecoder() (*decoder, error) {
	rd, err := exconsumer.NewReader(payments.Catalog, "examples/payments")
	if err != nil {
		return nil, err
	}
	d := &decoder{rd: rd, resolved: map[*registry.Version]*avro.Resolved{}}
	for _, t := range rd.Catalog.Types {
		reader := t.Latest().Compiled.(*avro.Schema)
		for _, v := range t.Versions {
			r, err := avro.NewResolved(v.Compiled.(*avro.Schema), reader)
			if err != nil {
				return nil, fmt.Errorf("%s v%d cannot be read as v%d: %w", t.Name, v.Number, t.Latest().Number, err)
			}
			d.resolved[v] = r
		}
	}
	return d, nil
}

func (d *decoder) decode(r *kgo.Record) (paymentEvent, error) {
	ev, err := d.rd.Read(r)
	if err != nil {
		return paymentEvent{}, err
	}
	writer, ok := ev.Version.Compiled.(*avro.Schema)
	if !ok {
		return paymentEvent{}, &exconsumer.Reject{Kind: "unknown-type", Err: fmt.Errorf("event %q: %s is not an Avro type", ev.ID, ev.Type)}
	}
	value, err := d.readerValue(ev, writer)
	if err != nil {
		return paymentEvent{}, &exconsumer.Reject{Kind: "invalid-data", Err: fmt.Errorf("event %q (%s v%d): %w", ev.ID, ev.Type, ev.Version.Number, err)}
	}
	pe, err := parse(ev.Type, value)
	if err != nil {
		return pe, &exconsumer.Reject{Kind: "invalid-data", Err: fmt.Errorf("event %q (%s v%d): %w", ev.ID, ev.Type, ev.Version.Number, err)}
	}
	pe.ID, pe.Type, pe.Version = ev.ID, ev.Type, ev.Version.Number
	return pe, nil
}

// readerValue is the event's datum resolved to the newest version, in
// Avro's JSON encoding: the writer's datum (binary or JSON encoding), in
// binary again without any framing, read by the resolved reader.
func (d *decoder) readerValue(ev exconsumer.Event, writer *avro.Schema) ([]byte, error) {
	var datum any
	var err error
	if format.IsJSON(ev.ContentType) {
		datum, err = writer.DecodeJSON(ev.Data)
	} else {
		datum, _, _, err = writer.DecodeBinary(ev.Data, avro.FramingAuto)
	}
	if err != nil {
		return nil, err
	}
	bin, err := writer.Encode(datum)
	if err != nil {
		return nil, err
	}
	resolved, err := d.resolved[ev.Version].Decode(bin)
	if err != nil {
		return nil, err
	}
	reader := d.rd.Catalog.Lookup(ev.Type).Latest().Compiled.(*avro.Schema)
	return reader.EncodeJSON(resolved)
}

// parse reads a value of the newest version of typ. Fields the older
// versions lack (merchantRef, settlement, reason) are not kept: an older
// producer's event carries their defaults, so the ledger's figures are
// the same whichever version a payment's events were written with.
func parse(typ string, value []byte) (paymentEvent, error) {
	var v struct {
		PaymentID string  `json:"paymentId"`
		AccountID string  `json:"accountId"`
		Sequence  int64   `json:"sequence"`
		Amount    money   `json:"amount"`
		Method    string  `json:"method"`
		Captured  money   `json:"captured"`
		FeeRate   float64 `json:"feeRate"`
		RefundID  string  `json:"refundId"`
		Refund    money   `json:"refund"`
	}
	if err := json.Unmarshal(value, &v); err != nil {
		return paymentEvent{}, err
	}
	e := paymentEvent{PaymentID: v.PaymentID, AccountID: v.AccountID, Sequence: v.Sequence}
	var m money
	switch typ {
	case typeAuthorized:
		m, e.Method = v.Amount, v.Method
	case typeCaptured:
		m = v.Captured
		// v1 wrote a float: 0.015 arrives as 0.01499999966; basis points
		// are what the rate means.
		e.FeeBasisPoints = int64(math.Round(v.FeeRate * 10000))
	case typeRefunded:
		m, e.RefundID = v.Refund, v.RefundID
	default:
		return e, fmt.Errorf("unknown event type %q", typ)
	}
	var err error
	if e.AmountMinor, err = m.minor(); err != nil {
		return e, err
	}
	e.Currency = m.Currency
	if e.PaymentID == "" || e.Sequence < 1 {
		return e, fmt.Errorf("no paymentId or sequence")
	}
	return e, nil
}
