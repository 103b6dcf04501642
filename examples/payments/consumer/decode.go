package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/payments"
	"github.com/evtool/evtool/examples/payments/events"
)

// Event types of the payments catalog.
const (
	typeAuthorized = events.PaymentAuthorizedType
	typeCaptured   = events.PaymentCapturedType
	typeRefunded   = events.PaymentRefundedType
)

// paymentEvent is an event of any type in its newest version's layout,
// reduced to what the ledger keeps.
type paymentEvent struct {
	ID, Type  string
	Version   int // the writer's version
	PaymentID string
	AccountID string
	Sequence  int64
	// every type: the amount authorized, captured or refunded
	AmountMinor int64
	Currency    string
	// authorized
	Method string
	// captured
	FeeBasisPoints int64
	// refunded
	RefundID string
}

// decoder checks records against the embedded catalog (type, version,
// source, data), then decodes them with the Go types `evtool gen go`
// generated from it (../events): whatever version wrote an event, its
// data arrives as the newest version's struct, by Avro's schema resolution.
type decoder struct {
	rd *exconsumer.Reader
}

func newDecoder() (*decoder, error) { return newDecoderFrom(payments.Catalog, "examples/payments") }

// newDecoderFrom reads with the catalog in fsys (evtool.yaml at its root).
func newDecoderFrom(fsys fs.FS, display string) (*decoder, error) {
	rd, err := exconsumer.NewReader(fsys, display)
	if err != nil {
		return nil, err
	}
	return &decoder{rd: rd}, nil
}

func (d *decoder) decode(r *kgo.Record) (paymentEvent, error) {
	ev, err := d.rd.Read(r)
	if err != nil {
		return paymentEvent{}, err
	}
	reject := func(err error) (paymentEvent, error) {
		kind := "invalid-data"
		if errors.Is(err, events.ErrUnknownType) {
			kind = "unknown-type"
		}
		return paymentEvent{}, &exconsumer.Reject{Kind: kind, Err: fmt.Errorf("event %q (%s v%d): %w", ev.ID, ev.Type, ev.Version.Number, err)}
	}
	data, err := events.Decode(ev.CloudEvent)
	if err != nil {
		return reject(err)
	}
	pe, err := parse(data)
	if err != nil {
		return reject(err)
	}
	pe.ID, pe.Type, pe.Version = ev.ID, ev.Type, ev.Version.Number
	return pe, nil
}

// parse reduces the newest version's struct to what the ledger keeps.
// Fields the older versions lack (merchantRef, settlement, reason) are
// not kept: an older producer's event carries their defaults, so the
// ledger's figures are the same whichever version wrote a payment.
func parse(data any) (paymentEvent, error) {
	var e paymentEvent
	var amount *big.Rat
	switch v := data.(type) {
	case *events.PaymentAuthorizedV3:
		e = paymentEvent{PaymentID: v.PaymentID, AccountID: v.AccountID, Sequence: v.Sequence, Currency: v.Amount.Currency, Method: string(v.Method)}
		amount = v.Amount.Amount
	case *events.PaymentCapturedV3:
		e = paymentEvent{PaymentID: v.PaymentID, AccountID: v.AccountID, Sequence: v.Sequence, Currency: v.Captured.Currency}
		amount = v.Captured.Amount
		// v1 wrote a float: 0.015 arrives as 0.01499999966; basis points
		// are what the rate means.
		e.FeeBasisPoints = int64(math.Round(v.FeeRate * 10000))
	case *events.PaymentRefundedV3:
		e = paymentEvent{PaymentID: v.PaymentID, AccountID: v.AccountID, Sequence: v.Sequence, Currency: v.Refund.Currency, RefundID: v.RefundID}
		amount = v.Refund.Amount
	default:
		return e, fmt.Errorf("no handler for %T", data)
	}
	minor, err := minorUnits(amount)
	if err != nil {
		return e, err
	}
	e.AmountMinor = minor
	if e.PaymentID == "" || e.Sequence < 1 {
		return e, fmt.Errorf("no paymentId or sequence")
	}
	return e, nil
}

// minorUnits is a decimal(12, 2) amount in cents (pence, ...).
func minorUnits(amount *big.Rat) (int64, error) {
	if amount == nil {
		return 0, fmt.Errorf("no amount")
	}
	m := new(big.Rat).Mul(amount, big.NewRat(100, 1))
	if !m.IsInt() || !m.Num().IsInt64() {
		return 0, fmt.Errorf("amount %s is not a whole number of minor units", amount.FloatString(4))
	}
	return m.Num().Int64(), nil
}
