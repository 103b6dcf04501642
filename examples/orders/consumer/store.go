package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/evtool/evtool/examples/internal/exconsumer"
	"github.com/evtool/evtool/examples/internal/exdb"
	"github.com/evtool/evtool/examples/orders/events"
)

// Event types of the orders catalog.
const (
	typePlaced  = "com.example.order.placed"
	typePaid    = "com.example.order.paid"
	typeShipped = "com.example.order.shipped"
)

type money struct {
	AmountMinor int64  `json:"amountMinor"`
	Currency    string `json:"currency"`
}

// orderEvent is the part of an order event this consumer uses.
type orderEvent struct {
	ID   string
	Type string
	// Common to every type.
	OrderID      string `json:"orderId"`
	OrderVersion int64  `json:"orderVersion"`
	// placed
	CustomerID string `json:"customerId"`
	Total      money  `json:"total"`
	Channel    string `json:"channel"`
	// paid
	PaymentID string `json:"paymentId"`
	Amount    money  `json:"amount"`
	Method    string `json:"method"`
	// shipped
	ShipmentID     string `json:"shipmentId"`
	Carrier        string `json:"carrier"`
	TrackingNumber string `json:"trackingNumber"`
	Parcels        int64  `json:"parcels"`
}

// readEvent validates an event with the catalog's generated decoders
// (every known version of a type, its data against that version's schema)
// and extracts what the store needs.
func readEvent(e event.Event) (orderEvent, error) {
	if _, err := events.Decode(e); err != nil {
		kind := "invalid-data"
		switch {
		case errors.Is(err, events.ErrUnknownType):
			kind = "unknown-type"
		case strings.Contains(err.Error(), "unknown dataschema"):
			kind = "unknown-version"
		case len(events.ValidationErrors(err)) == 0:
			kind = "undecodable"
		}
		return orderEvent{}, &exconsumer.Reject{Kind: kind, Err: err}
	}
	ev, err := parseEvent(e.ID(), e.Type(), e.Data())
	if err != nil {
		return ev, &exconsumer.Reject{Kind: "invalid-data", Err: err}
	}
	return ev, nil
}

func parseEvent(id, typ string, data []byte) (orderEvent, error) {
	var e orderEvent
	switch typ {
	case typePlaced, typePaid, typeShipped:
	default:
		return e, fmt.Errorf("unknown event type %q", typ)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("%s %s: %v", typ, id, err)
	}
	if e.OrderID == "" || e.OrderVersion < 1 {
		return e, fmt.Errorf("%s %s: no orderId or orderVersion", typ, id)
	}
	e.ID, e.Type = id, typ
	return e, nil
}

// store is the read model in SQLite.
type store struct {
	db    *sql.DB
	naive bool
	now   func() time.Time
	// stmts are the statements of apply prepared in tx, once per batch:
	// SQLite parsing each statement of each event again cost a third of
	// applying it. (Not on db: its one connection is the transaction's.)
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// exec runs query in tx, prepared once per transaction (the statements
// close with it).
func (s *store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if s.tx != tx {
		s.tx = tx
		clear(s.stmts)
	}
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		s.stmts[query] = st
	}
	return st.ExecContext(ctx, args...)
}

const schemaCorrect = `
CREATE TABLE IF NOT EXISTS inbox (
	event_id     TEXT PRIMARY KEY,
	type         TEXT NOT NULL,
	order_id     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
	order_id     TEXT PRIMARY KEY,
	customer_id  TEXT,
	channel      TEXT,
	total_minor  INTEGER,
	currency     TEXT,
	status       TEXT NOT NULL,     -- placed, paid, shipped: the newest event applied
	version      INTEGER NOT NULL,  -- orderVersion of the newest event applied
	paid_minor   INTEGER NOT NULL DEFAULT 0,
	parcels      INTEGER NOT NULL DEFAULT 0,
	updated_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS payments (
	payment_id   TEXT PRIMARY KEY,
	order_id     TEXT NOT NULL,
	amount_minor INTEGER NOT NULL,
	currency     TEXT NOT NULL,
	method       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS shipments (
	shipment_id  TEXT PRIMARY KEY,
	order_id     TEXT NOT NULL,
	carrier      TEXT NOT NULL,
	tracking     TEXT NOT NULL,
	parcels      INTEGER NOT NULL
);`

// The naive schema has no inbox and no keys on payments and shipments.
const schemaNaive = `
CREATE TABLE IF NOT EXISTS orders (
	order_id     TEXT PRIMARY KEY,
	customer_id  TEXT,
	channel      TEXT,
	total_minor  INTEGER,
	currency     TEXT,
	status       TEXT NOT NULL,
	version      INTEGER NOT NULL,
	paid_minor   INTEGER NOT NULL DEFAULT 0,
	parcels      INTEGER NOT NULL DEFAULT 0,
	updated_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS payments (
	payment_id   TEXT NOT NULL,
	order_id     TEXT NOT NULL,
	amount_minor INTEGER NOT NULL,
	currency     TEXT NOT NULL,
	method       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS shipments (
	shipment_id  TEXT NOT NULL,
	order_id     TEXT NOT NULL,
	carrier      TEXT NOT NULL,
	tracking     TEXT NOT NULL,
	parcels      INTEGER NOT NULL
);`

func openStore(path string, naive bool) (*store, error) {
	// A busy timeout (first: switching to WAL takes a lock too) and WAL let the instances of a group (consumer
	// processes sharing EVTOOL_WORKDIR) write one database in turn;
	// immediate transactions take the write lock at BEGIN, so two
	// instances never both read and then fail to upgrade (SQLITE_BUSY
	// that no busy timeout resolves).
	schema := schemaCorrect
	if naive {
		schema = schemaNaive
	}
	// One connection: SQLite has one writer anyway, and the state reads
	// then see only committed batches.
	db, err := exdb.Open(path, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate", schema)
	if err != nil {
		return nil, err
	}
	return &store{db: db, naive: naive, now: time.Now, stmts: map[string]*sql.Stmt{}}, nil
}

func (s *store) Close() error { return s.db.Close() }

// Apply applies a batch of events in one transaction and returns how many
// had an effect (the rest were duplicates).
func (s *store) Apply(ctx context.Context, events []orderEvent) (int, error) {
	apply := s.apply
	if s.naive {
		apply = s.applyNaive
	}
	return exconsumer.ApplyBatch(ctx, s.db, events, apply, func(e orderEvent) string { return e.Type + " " + e.ID })
}

// Seen returns which of the ids are in the inbox (applied before). The
// naive store has no inbox: nothing was seen.
func (s *store) Seen(ctx context.Context, ids []string) (map[string]bool, error) {
	if s.naive {
		return exconsumer.InboxSeen(nil)(ctx, ids)
	}
	return exconsumer.InboxSeen(s.db)(ctx, ids)
}

// apply is the correct handler: dedupe through the inbox, in the same
// transaction as the effect; status and version only move forward.
func (s *store) apply(ctx context.Context, tx *sql.Tx, e orderEvent) (bool, error) {
	r, err := s.exec(ctx, tx, `INSERT INTO inbox (event_id, type, order_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, e.ID, e.Type, e.OrderID)
	if err != nil {
		return false, err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return false, nil // seen before
	}
	now := s.now().UTC().Format(time.RFC3339Nano)
	// Status and version follow the newest event; an older one arriving
	// late leaves them alone.
	const forward = `
		status     = CASE WHEN excluded.version > orders.version THEN excluded.status ELSE orders.status END,
		version    = max(orders.version, excluded.version),
		updated_at = excluded.updated_at`
	switch e.Type {
	case typePlaced:
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, customer_id, channel, total_minor, currency, status, version, updated_at)
			VALUES (?, ?, ?, ?, ?, 'placed', ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET
				customer_id = excluded.customer_id, channel = excluded.channel,
				total_minor = excluded.total_minor, currency = excluded.currency,`+forward,
			e.OrderID, e.CustomerID, nullable(e.Channel), e.Total.AmountMinor, e.Total.Currency, e.OrderVersion, now)
	case typePaid:
		r, err = s.exec(ctx, tx, `INSERT INTO payments (payment_id, order_id, amount_minor, currency, method) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			e.PaymentID, e.OrderID, e.Amount.AmountMinor, e.Amount.Currency, e.Method)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil // the same payment under another event id
		}
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, status, version, paid_minor, updated_at) VALUES (?, 'paid', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET paid_minor = orders.paid_minor + excluded.paid_minor,`+forward,
			e.OrderID, e.OrderVersion, e.Amount.AmountMinor, now)
	case typeShipped:
		r, err = s.exec(ctx, tx, `INSERT INTO shipments (shipment_id, order_id, carrier, tracking, parcels) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			e.ShipmentID, e.OrderID, e.Carrier, e.TrackingNumber, e.Parcels)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil
		}
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, status, version, parcels, updated_at) VALUES (?, 'shipped', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET parcels = orders.parcels + excluded.parcels,`+forward,
			e.OrderID, e.OrderVersion, e.Parcels, now)
	}
	return err == nil, err
}

// applyNaive is the buggy handler: every delivery is applied, and the last
// event to arrive sets the status and version.
func (s *store) applyNaive(ctx context.Context, tx *sql.Tx, e orderEvent) (bool, error) {
	now := s.now().UTC().Format(time.RFC3339Nano)
	const lastWins = `
		status = excluded.status, version = excluded.version, updated_at = excluded.updated_at`
	var err error
	switch e.Type {
	case typePlaced:
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, customer_id, channel, total_minor, currency, status, version, updated_at)
			VALUES (?, ?, ?, ?, ?, 'placed', ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET
				customer_id = excluded.customer_id, channel = excluded.channel,
				total_minor = excluded.total_minor, currency = excluded.currency,`+lastWins,
			e.OrderID, e.CustomerID, nullable(e.Channel), e.Total.AmountMinor, e.Total.Currency, e.OrderVersion, now)
	case typePaid:
		if _, err = s.exec(ctx, tx, `INSERT INTO payments (payment_id, order_id, amount_minor, currency, method) VALUES (?, ?, ?, ?, ?)`,
			e.PaymentID, e.OrderID, e.Amount.AmountMinor, e.Amount.Currency, e.Method); err != nil {
			return false, err
		}
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, status, version, paid_minor, updated_at) VALUES (?, 'paid', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET paid_minor = orders.paid_minor + excluded.paid_minor,`+lastWins,
			e.OrderID, e.OrderVersion, e.Amount.AmountMinor, now)
	case typeShipped:
		if _, err = s.exec(ctx, tx, `INSERT INTO shipments (shipment_id, order_id, carrier, tracking, parcels) VALUES (?, ?, ?, ?, ?)`,
			e.ShipmentID, e.OrderID, e.Carrier, e.TrackingNumber, e.Parcels); err != nil {
			return false, err
		}
		_, err = s.exec(ctx, tx, `
			INSERT INTO orders (order_id, status, version, parcels, updated_at) VALUES (?, 'shipped', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET parcels = orders.parcels + excluded.parcels,`+lastWins,
			e.OrderID, e.OrderVersion, e.Parcels, now)
	}
	return err == nil, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// State returns the state WriteState writes (replaytest runs the store
// in-process and takes it as a value).
func (s *store) State(ctx context.Context) (any, error) {
	var b bytes.Buffer
	if err := s.WriteState(ctx, &b); err != nil {
		return nil, err
	}
	return json.RawMessage(b.Bytes()), nil
}

// The rows of the state, their members in the order of their JSON names
// (as encoding a map would order them).
type (
	inboxRow struct {
		EventID string `json:"eventId"`
		OrderID string `json:"orderId"`
		Type    string `json:"type"`
	}
	orderRow struct {
		Channel      *string `json:"channel,omitempty"`
		Currency     string  `json:"currency"`
		CustomerID   string  `json:"customerId"`
		FullyPaid    *bool   `json:"fullyPaid,omitempty"`
		OrderVersion int64   `json:"orderVersion"`
		PaidMinor    int64   `json:"paidMinor"`
		Parcels      int64   `json:"parcels"`
		Status       string  `json:"status"`
		TotalMinor   int64   `json:"totalMinor"`
		UpdatedAt    string  `json:"updatedAt"`
	}
	paymentRow struct {
		AmountMinor int64  `json:"amountMinor"`
		Currency    string `json:"currency"`
		Method      string `json:"method"`
		OrderID     string `json:"orderId"`
		PaymentID   string `json:"paymentId"`
	}
	shipmentRow struct {
		Carrier        string `json:"carrier"`
		OrderID        string `json:"orderId"`
		Parcels        int64  `json:"parcels"`
		ShipmentID     string `json:"shipmentId"`
		TrackingNumber string `json:"trackingNumber"`
	}
)

// WriteState writes the tables as one JSON object, row by row from one
// read transaction, in a deterministic order: orders keyed by id;
// payments, shipments and the inbox as rows sorted by their key (then by
// every column, for the naive tables without keys). It holds one row at a
// time: the state of a million events is written as fast as SQLite reads
// it, where building it as Go values and encoding them took minutes.
func (s *store) WriteState(ctx context.Context, w io.Writer) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	sw := &stateWriter{w: w}
	// Members in key order: inbox, orders, payments, shipments.
	ordersOpen := "{\"orders\":{"
	if !s.naive {
		err = sw.rows(ctx, tx, "{\"inbox\":[", `SELECT event_id, type, order_id FROM inbox ORDER BY event_id`, func(rows *sql.Rows) (any, error) {
			var r inboxRow
			err := rows.Scan(&r.EventID, &r.Type, &r.OrderID)
			return r, err
		}, sw.element)
		if err != nil {
			return err
		}
		ordersOpen = "],\"orders\":{"
	}
	err = sw.rows(ctx, tx, ordersOpen, `SELECT order_id, customer_id, channel, total_minor, currency, status, version, paid_minor, parcels, updated_at FROM orders ORDER BY order_id`, func(rows *sql.Rows) (any, error) {
		var id string
		var customer, channel, currency sql.NullString
		var total sql.NullInt64
		var o orderRow
		if err := rows.Scan(&id, &customer, &channel, &total, &currency, &o.Status, &o.OrderVersion, &o.PaidMinor, &o.Parcels, &o.UpdatedAt); err != nil {
			return nil, err
		}
		o.CustomerID, o.Currency, o.TotalMinor = customer.String, currency.String, total.Int64
		if channel.Valid {
			o.Channel = &channel.String
		}
		if total.Valid {
			paid := o.PaidMinor >= total.Int64
			o.FullyPaid = &paid
		}
		return keyed{id, o}, nil
	}, sw.member)
	if err != nil {
		return err
	}
	err = sw.rows(ctx, tx, "},\"payments\":[", `SELECT payment_id, order_id, amount_minor, currency, method FROM payments ORDER BY payment_id, order_id, amount_minor, currency, method`, func(rows *sql.Rows) (any, error) {
		var r paymentRow
		err := rows.Scan(&r.PaymentID, &r.OrderID, &r.AmountMinor, &r.Currency, &r.Method)
		return r, err
	}, sw.element)
	if err != nil {
		return err
	}
	err = sw.rows(ctx, tx, "],\"shipments\":[", `SELECT shipment_id, order_id, carrier, tracking, parcels FROM shipments ORDER BY shipment_id, order_id, carrier, tracking, parcels`, func(rows *sql.Rows) (any, error) {
		var r shipmentRow
		err := rows.Scan(&r.ShipmentID, &r.OrderID, &r.Carrier, &r.TrackingNumber, &r.Parcels)
		return r, err
	}, sw.element)
	if err != nil {
		return err
	}
	sw.raw("]}\n")
	return sw.err
}

// rows writes prefix (closing the previous container, opening the next)
// and then each row of query (eachRow).
func (sw *stateWriter) rows(ctx context.Context, tx *sql.Tx, prefix, query string, scan func(*sql.Rows) (any, error), put func(any)) error {
	sw.raw(prefix)
	sw.n = 0
	return eachRow(ctx, tx, query, scan, put)
}

// eachRow runs query and hands each row, as scan reads it, to put.
func eachRow(ctx context.Context, tx *sql.Tx, query string, scan func(*sql.Rows) (any, error), put func(any)) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		put(v)
	}
	return rows.Err()
}

// keyed is an object member: its key and value.
type keyed struct {
	key string
	val any
}

// stateWriter writes JSON elements and members separated by commas (n
// counts those written in the current container), keeping the first
// error.
type stateWriter struct {
	w   io.Writer
	n   int
	err error
}

func (sw *stateWriter) raw(s string) {
	if sw.err == nil {
		_, sw.err = io.WriteString(sw.w, s)
	}
}

func (sw *stateWriter) json(v any) {
	if sw.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		sw.err = err
		return
	}
	_, sw.err = sw.w.Write(b)
}

func (sw *stateWriter) element(v any) {
	if sw.n > 0 {
		sw.raw(",")
	}
	sw.n++
	sw.json(v)
}

func (sw *stateWriter) member(v any) {
	kv := v.(keyed)
	if sw.n > 0 {
		sw.raw(",")
	}
	sw.n++
	sw.json(kv.key)
	sw.raw(":")
	sw.json(kv.val)
}
