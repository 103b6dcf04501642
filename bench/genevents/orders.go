package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Event types of the examples/orders catalog.
const (
	typePlaced  = "com.example.order.placed"
	typePaid    = "com.example.order.paid"
	typeShipped = "com.example.order.shipped"
)

// config says what to generate. The output is a function of config alone.
type config struct {
	N          int       // events to write
	Orders     int       // distinct order ids
	Seed       uint64    // seed of the only random source
	Start      time.Time // time of the first event
	Source     string    // CloudEvents source attribute
	DataSchema string    // URI template with {type} and {version}
}

// envelope is a CloudEvents 1.0 structured-mode event; the field order is
// the order on the wire.
type envelope struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Subject         string `json:"subject"`
	Time            string `json:"time"`
	DataContentType string `json:"datacontenttype"`
	DataSchema      string `json:"dataschema"`
	Data            any    `json:"data"`
}

type money struct {
	AmountMinor int64  `json:"amountMinor"`
	Currency    string `json:"currency"`
}

type lineItem struct {
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
	UnitPrice money  `json:"unitPrice"`
}

// orderPlaced is v1 and, with Channel set, v2 of com.example.order.placed.
type orderPlaced struct {
	OrderID      string     `json:"orderId"`
	CustomerID   string     `json:"customerId"`
	OrderVersion int        `json:"orderVersion"`
	Items        []lineItem `json:"items"`
	Total        money      `json:"total"`
	PlacedAt     string     `json:"placedAt"`
	Channel      string     `json:"channel,omitempty"`
}

type orderPaid struct {
	OrderID      string `json:"orderId"`
	OrderVersion int    `json:"orderVersion"`
	PaymentID    string `json:"paymentId"`
	Amount       money  `json:"amount"`
	Method       string `json:"method"`
	PaidAt       string `json:"paidAt"`
}

type address struct {
	Name       string `json:"name"`
	Line1      string `json:"line1"`
	Line2      string `json:"line2,omitempty"`
	City       string `json:"city"`
	PostalCode string `json:"postalCode"`
	Country    string `json:"country"`
}

type orderShipped struct {
	OrderID        string  `json:"orderId"`
	OrderVersion   int     `json:"orderVersion"`
	ShipmentID     string  `json:"shipmentId"`
	Carrier        string  `json:"carrier"`
	TrackingNumber string  `json:"trackingNumber"`
	Parcels        int     `json:"parcels"`
	Address        address `json:"address"`
	ShippedAt      string  `json:"shippedAt"`
}

// destination is a delivery address with the currency its customers pay in
// and the carriers that serve it.
type destination struct {
	addr     address
	currency string
	carriers []string
}

var destinations = []destination{
	{address{"Lena Hoffmann", "Kastanienallee 12", "", "Berlin", "10435", "DE"}, "EUR", []string{"dhl", "dpd"}},
	{address{"Jonas Weber", "Leopoldstraße 88", "3. OG", "München", "80802", "DE"}, "EUR", []string{"dhl", "ups"}},
	{address{"Camille Martin", "14 rue des Abbesses", "", "Paris", "75018", "FR"}, "EUR", []string{"dpd", "ups"}},
	{address{"Sanne de Vries", "Prinsengracht 263", "", "Amsterdam", "1016 GV", "NL"}, "EUR", []string{"dhl", "dpd"}},
	{address{"Priya Shah", "27 Wellington Road", "Flat 3", "Leeds", "LS1 4AP", "GB"}, "GBP", []string{"royal_mail", "dpd"}},
	{address{"Tom Evans", "5 Clifton Street", "", "Bristol", "BS8 1HA", "GB"}, "GBP", []string{"royal_mail", "ups"}},
	{address{"Maria Garcia", "401 W 14th St", "Apt 5B", "New York", "10014", "US"}, "USD", []string{"usps", "ups", "fedex"}},
	{address{"Kevin Nguyen", "1820 Market St", "", "San Francisco", "94102", "US"}, "USD", []string{"usps", "fedex"}},
}

// products: SKU and unit price in minor units (same figure in every currency).
var products = []struct {
	sku   string
	price int64
}{
	{"TSH-0042", 1999}, {"HDY-0117", 4999}, {"JNS-0201", 7995}, {"SHO-0815", 8995},
	{"MUG-0007", 899}, {"BOK-1203", 2450}, {"HDP-0310", 14900}, {"CBL-0021", 1299},
	{"LMP-0560", 3450}, {"BAG-0099", 5900}, {"SCK-0003", 599}, {"CAP-0144", 1750},
}

var channels = []string{"web", "web", "web", "mobile", "mobile", "store"}

var methods = []string{"card", "card", "card", "card", "paypal", "paypal", "bank_transfer"}

// order is the state of one simulated order: constant size, whatever its
// number of events.
type order struct {
	id       string
	left     int // events still to write, the placed event included
	version  int // orderVersion of the last event written
	payLeft  int // payments still to write
	shipLeft int // shipments still to write
	unpaid   int64
	currency string
	dest     *destination
}

// generator writes the events of a config, one at a time.
type generator struct {
	cfg     config
	rng     *rand.Rand
	now     time.Time
	orders  []order
	active  []int // indexes into orders with events left
	schemas map[string]string
}

func newGenerator(cfg config) *generator {
	g := &generator{
		cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6f726465727321)),
		now: cfg.Start.UTC().Truncate(time.Second),
	}
	n := cfg.Orders
	if n > cfg.N {
		n = cfg.N
	}
	g.orders = make([]order, n)
	g.active = make([]int, n)
	for i := range g.orders {
		left := cfg.N / n
		if i < cfg.N%n {
			left++
		}
		g.orders[i] = order{id: fmt.Sprintf("ord-%05d", i+1), left: left}
		g.active[i] = i
	}
	g.schemas = map[string]string{}
	for _, tv := range []struct {
		typ     string
		version int
	}{{typePlaced, 1}, {typePlaced, 2}, {typePaid, 1}, {typeShipped, 1}} {
		g.schemas[tv.typ+"/"+strconv.Itoa(tv.version)] = strings.NewReplacer(
			"{type}", tv.typ, "{version}", strconv.Itoa(tv.version)).Replace(cfg.DataSchema)
	}
	return g
}

// generate writes cfg.N events as JSON lines to w. Memory use depends on
// cfg.Orders, not on cfg.N.
func generate(w io.Writer, cfg config) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	g := newGenerator(cfg)
	var ev envelope
	for range cfg.N {
		g.next(&ev)
		if err := enc.Encode(&ev); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// next fills ev with the next event: one of a random order with events left.
func (g *generator) next(ev *envelope) {
	r := g.rng
	g.now = g.now.Add(time.Duration(1+r.IntN(15)) * time.Second)
	at := g.now.Format(time.RFC3339)

	j := r.IntN(len(g.active))
	o := &g.orders[g.active[j]]
	o.left--
	if o.left == 0 {
		g.active[j] = g.active[len(g.active)-1]
		g.active = g.active[:len(g.active)-1]
	}
	o.version++

	*ev = envelope{
		SpecVersion:     "1.0",
		ID:              g.uuid(),
		Source:          g.cfg.Source,
		Subject:         o.id,
		Time:            at,
		DataContentType: "application/json",
	}
	switch {
	case o.version == 1:
		ev.Type = typePlaced
		data := g.place(o, at)
		version := 1
		if data.Channel != "" {
			version = 2
		}
		ev.DataSchema = g.schemas[typePlaced+"/"+strconv.Itoa(version)]
		ev.Data = data
	case o.payLeft > 0 && (o.version == 2 || r.IntN(o.payLeft+o.shipLeft) < o.payLeft):
		// The first event after the placed one is a payment.
		ev.Type = typePaid
		ev.DataSchema = g.schemas[typePaid+"/1"]
		ev.Data = g.pay(o, at)
	default:
		ev.Type = typeShipped
		ev.DataSchema = g.schemas[typeShipped+"/1"]
		ev.Data = g.ship(o, at)
	}
}

// place decides what the order contains and how its remaining events split
// between payments and shipments.
func (g *generator) place(o *order, at string) *orderPlaced {
	r := g.rng
	o.dest = &destinations[r.IntN(len(destinations))]
	o.currency = o.dest.currency
	rest := o.left // events after this one
	// An order with many events is a bulk order: quantities grow with the
	// number of payments to come, so that each can be for a real amount.
	scale := int64(max(1, min(333, rest/20)))
	items := make([]lineItem, 1+r.IntN(3))
	var total int64
	for i := range items {
		p := products[r.IntN(len(products))]
		q := min(1000, int64(1+r.IntN(3))*scale)
		items[i] = lineItem{SKU: p.sku, Quantity: q, UnitPrice: money{p.price, o.currency}}
		total += q * p.price
	}
	o.unpaid = total
	o.shipLeft = rest * (25 + r.IntN(16)) / 100
	o.payLeft = rest - o.shipLeft
	data := &orderPlaced{
		OrderID:      o.id,
		CustomerID:   fmt.Sprintf("cus-%06d", r.IntN(1_000_000)),
		OrderVersion: o.version,
		Items:        items,
		Total:        money{total, o.currency},
		PlacedAt:     at,
	}
	if r.IntN(2) == 1 { // half the orders come from a producer already on v2
		data.Channel = channels[r.IntN(len(channels))]
	}
	return data
}

// pay captures part of what is unpaid; the last payment pays the rest, so
// the payments of an order add up to its total.
func (g *generator) pay(o *order, at string) *orderPaid {
	r := g.rng
	amount := o.unpaid
	if o.payLeft > 1 {
		share := o.unpaid / int64(o.payLeft)
		amount = min(o.unpaid, share/2+r.Int64N(share+1))
	}
	o.unpaid -= amount
	o.payLeft--
	return &orderPaid{
		OrderID:      o.id,
		OrderVersion: o.version,
		PaymentID:    g.uuid(),
		Amount:       money{amount, o.currency},
		Method:       methods[r.IntN(len(methods))],
		PaidAt:       at,
	}
}

func (g *generator) ship(o *order, at string) *orderShipped {
	r := g.rng
	o.shipLeft--
	carrier := o.dest.carriers[r.IntN(len(o.dest.carriers))]
	return &orderShipped{
		OrderID:        o.id,
		OrderVersion:   o.version,
		ShipmentID:     fmt.Sprintf("shp-%012x", r.Uint64()>>16),
		Carrier:        carrier,
		TrackingNumber: g.tracking(carrier),
		Parcels:        1 + r.IntN(3),
		Address:        o.dest.addr,
		ShippedAt:      at,
	}
}

// tracking returns a tracking number in the style of the carrier.
func (g *generator) tracking(carrier string) string {
	r := g.rng
	switch carrier {
	case "dhl":
		return fmt.Sprintf("JD01%016d", r.Uint64N(1e16))
	case "ups":
		return fmt.Sprintf("1Z%016X", r.Uint64())
	case "usps":
		return fmt.Sprintf("9400%018d", r.Uint64N(1e18))
	case "royal_mail":
		return fmt.Sprintf("RM%09dGB", r.Uint64N(1e9))
	default: // fedex, dpd
		return fmt.Sprintf("%014d", r.Uint64N(1e14))
	}
}

// uuid returns a version 4 UUID drawn from the seeded source.
func (g *generator) uuid() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[:8], g.rng.Uint64())
	binary.BigEndian.PutUint64(u[8:], g.rng.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}
