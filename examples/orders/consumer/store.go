package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	return &store{db: db, naive: naive, now: time.Now}, nil
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
	r, err := tx.ExecContext(ctx, `INSERT INTO inbox (event_id, type, order_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, e.ID, e.Type, e.OrderID)
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
		_, err = tx.ExecContext(ctx, `
			INSERT INTO orders (order_id, customer_id, channel, total_minor, currency, status, version, updated_at)
			VALUES (?, ?, ?, ?, ?, 'placed', ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET
				customer_id = excluded.customer_id, channel = excluded.channel,
				total_minor = excluded.total_minor, currency = excluded.currency,`+forward,
			e.OrderID, e.CustomerID, nullable(e.Channel), e.Total.AmountMinor, e.Total.Currency, e.OrderVersion, now)
	case typePaid:
		r, err = tx.ExecContext(ctx, `INSERT INTO payments (payment_id, order_id, amount_minor, currency, method) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			e.PaymentID, e.OrderID, e.Amount.AmountMinor, e.Amount.Currency, e.Method)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil // the same payment under another event id
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO orders (order_id, status, version, paid_minor, updated_at) VALUES (?, 'paid', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET paid_minor = orders.paid_minor + excluded.paid_minor,`+forward,
			e.OrderID, e.OrderVersion, e.Amount.AmountMinor, now)
	case typeShipped:
		r, err = tx.ExecContext(ctx, `INSERT INTO shipments (shipment_id, order_id, carrier, tracking, parcels) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			e.ShipmentID, e.OrderID, e.Carrier, e.TrackingNumber, e.Parcels)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil
		}
		_, err = tx.ExecContext(ctx, `
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
		_, err = tx.ExecContext(ctx, `
			INSERT INTO orders (order_id, customer_id, channel, total_minor, currency, status, version, updated_at)
			VALUES (?, ?, ?, ?, ?, 'placed', ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET
				customer_id = excluded.customer_id, channel = excluded.channel,
				total_minor = excluded.total_minor, currency = excluded.currency,`+lastWins,
			e.OrderID, e.CustomerID, nullable(e.Channel), e.Total.AmountMinor, e.Total.Currency, e.OrderVersion, now)
	case typePaid:
		if _, err = tx.ExecContext(ctx, `INSERT INTO payments (payment_id, order_id, amount_minor, currency, method) VALUES (?, ?, ?, ?, ?)`,
			e.PaymentID, e.OrderID, e.Amount.AmountMinor, e.Amount.Currency, e.Method); err != nil {
			return false, err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO orders (order_id, status, version, paid_minor, updated_at) VALUES (?, 'paid', ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET paid_minor = orders.paid_minor + excluded.paid_minor,`+lastWins,
			e.OrderID, e.OrderVersion, e.Amount.AmountMinor, now)
	case typeShipped:
		if _, err = tx.ExecContext(ctx, `INSERT INTO shipments (shipment_id, order_id, carrier, tracking, parcels) VALUES (?, ?, ?, ?, ?)`,
			e.ShipmentID, e.OrderID, e.Carrier, e.TrackingNumber, e.Parcels); err != nil {
			return false, err
		}
		_, err = tx.ExecContext(ctx, `
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

// State returns the tables as JSON-ready values in a deterministic order:
// orders keyed by id; payments, shipments and the inbox as rows sorted by
// their key (then by every column, for the naive tables without keys).
func (s *store) State(ctx context.Context) (map[string]any, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	state := map[string]any{}
	orders := map[string]any{}
	rows, err := tx.QueryContext(ctx, `SELECT order_id, customer_id, channel, total_minor, currency, status, version, paid_minor, parcels, updated_at FROM orders ORDER BY order_id`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, status, updated string
		var customer, channel, currency sql.NullString
		var total sql.NullInt64
		var version, paid, parcels int64
		if err := rows.Scan(&id, &customer, &channel, &total, &currency, &status, &version, &paid, &parcels, &updated); err != nil {
			rows.Close()
			return nil, err
		}
		o := map[string]any{
			"status": status, "orderVersion": version, "paidMinor": paid, "parcels": parcels, "updatedAt": updated,
			"customerId": customer.String, "currency": currency.String, "totalMinor": total.Int64,
		}
		if channel.Valid {
			o["channel"] = channel.String
		}
		if total.Valid {
			o["fullyPaid"] = paid >= total.Int64
		}
		orders[id] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	state["orders"] = orders

	tables := []struct {
		name, query string
		cols        []string
	}{
		{"payments", `SELECT payment_id, order_id, amount_minor, currency, method FROM payments ORDER BY payment_id, order_id, amount_minor, currency, method`,
			[]string{"paymentId", "orderId", "amountMinor", "currency", "method"}},
		{"shipments", `SELECT shipment_id, order_id, carrier, tracking, parcels FROM shipments ORDER BY shipment_id, order_id, carrier, tracking, parcels`,
			[]string{"shipmentId", "orderId", "carrier", "trackingNumber", "parcels"}},
	}
	if !s.naive {
		tables = append(tables, struct {
			name, query string
			cols        []string
		}{"inbox", `SELECT event_id, type, order_id FROM inbox ORDER BY event_id`, []string{"eventId", "type", "orderId"}})
	}
	for _, t := range tables {
		rows, err := tx.QueryContext(ctx, t.query)
		if err != nil {
			return nil, err
		}
		list := []any{}
		for rows.Next() {
			vals := make([]any, len(t.cols))
			ptrs := make([]any, len(t.cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			row := map[string]any{}
			for i, c := range t.cols {
				row[c] = vals[i]
			}
			list = append(list, row)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		state[t.name] = list
	}
	return state, nil
}
