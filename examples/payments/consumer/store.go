package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

// store is the ledger in SQLite.
type store struct {
	db    *sql.DB
	naive bool
}

// paymentsTable is one row per payment, in both modes.
const paymentsTable = `
CREATE TABLE IF NOT EXISTS payments (
	payment_id      TEXT PRIMARY KEY,
	account_id      TEXT NOT NULL,
	status          TEXT NOT NULL,     -- authorized, captured, refunded: the event of the highest sequence applied
	sequence        INTEGER NOT NULL,
	authorized_minor INTEGER,
	captured_minor  INTEGER,
	refunded_minor  INTEGER NOT NULL DEFAULT 0,
	currency        TEXT,
	method          TEXT,
	fee_bps         INTEGER
);`

const schemaCorrect = paymentsTable + `
CREATE TABLE IF NOT EXISTS inbox (
	event_id        TEXT PRIMARY KEY,
	type            TEXT NOT NULL,
	payment_id      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refunds (
	refund_id       TEXT PRIMARY KEY,
	payment_id      TEXT NOT NULL,
	amount_minor    INTEGER NOT NULL,
	currency        TEXT NOT NULL
);`

// The naive schema has no inbox and no key on refunds.
const schemaNaive = paymentsTable + `
CREATE TABLE IF NOT EXISTS refunds (
	refund_id       TEXT NOT NULL,
	payment_id      TEXT NOT NULL,
	amount_minor    INTEGER NOT NULL,
	currency        TEXT NOT NULL
);`

func openStore(path string, naive bool) (*store, error) {
	schema := schemaCorrect
	if naive {
		schema = schemaNaive
	}
	db, err := exconsumer.OpenSQLite(path, schema)
	if err != nil {
		return nil, err
	}
	return &store{db: db, naive: naive}, nil
}

func (s *store) Close() error { return s.db.Close() }

// Apply applies a batch of events in one transaction and returns how many
// had an effect (the rest were duplicates).
func (s *store) Apply(ctx context.Context, events []paymentEvent) (int, error) {
	return exconsumer.ApplyBatch(ctx, s.db, events, s.apply, func(e paymentEvent) string { return e.Type + " " + e.ID })
}

// apply applies one event. Correct: the inbox drops a redelivered event
// in the transaction of its effect, a refund counts once per refundId,
// and status and sequence only move forward. Naive: every delivery counts
// and the last event to arrive sets the status.
func (s *store) apply(ctx context.Context, tx *sql.Tx, e paymentEvent) (bool, error) {
	if !s.naive {
		r, err := tx.ExecContext(ctx, `INSERT INTO inbox (event_id, type, payment_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, e.ID, e.Type, e.PaymentID)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil // seen before
		}
	}
	status := `
		status   = CASE WHEN excluded.sequence > payments.sequence THEN excluded.status ELSE payments.status END,
		sequence = max(payments.sequence, excluded.sequence)`
	if s.naive {
		status = `
		status = excluded.status, sequence = excluded.sequence`
	}
	var err error
	switch e.Type {
	case typeAuthorized:
		_, err = tx.ExecContext(ctx, `
			INSERT INTO payments (payment_id, account_id, status, sequence, authorized_minor, currency, method)
			VALUES (?, ?, 'authorized', ?, ?, ?, ?)
			ON CONFLICT (payment_id) DO UPDATE SET
				authorized_minor = excluded.authorized_minor, currency = excluded.currency, method = excluded.method,`+status,
			e.PaymentID, e.AccountID, e.Sequence, e.AmountMinor, e.Currency, e.Method)
	case typeCaptured:
		_, err = tx.ExecContext(ctx, `
			INSERT INTO payments (payment_id, account_id, status, sequence, captured_minor, currency, fee_bps)
			VALUES (?, ?, 'captured', ?, ?, ?, ?)
			ON CONFLICT (payment_id) DO UPDATE SET
				captured_minor = excluded.captured_minor, fee_bps = excluded.fee_bps,
				currency = coalesce(payments.currency, excluded.currency),`+status,
			e.PaymentID, e.AccountID, e.Sequence, e.AmountMinor, e.Currency, e.FeeBasisPoints)
	case typeRefunded:
		insert := `INSERT INTO refunds (refund_id, payment_id, amount_minor, currency) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
		if s.naive {
			insert = `INSERT INTO refunds (refund_id, payment_id, amount_minor, currency) VALUES (?, ?, ?, ?)`
		}
		r, err := tx.ExecContext(ctx, insert, e.RefundID, e.PaymentID, e.AmountMinor, e.Currency)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil // this refund was counted already
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO payments (payment_id, account_id, status, sequence, refunded_minor, currency)
			VALUES (?, ?, 'refunded', ?, ?, ?)
			ON CONFLICT (payment_id) DO UPDATE SET
				refunded_minor = payments.refunded_minor + excluded.refunded_minor,
				currency = coalesce(payments.currency, excluded.currency),`+status,
			e.PaymentID, e.AccountID, e.Sequence, e.AmountMinor, e.Currency)
		return err == nil, err
	}
	return err == nil, err
}

// State returns the ledger as JSON-ready values in a deterministic order:
// payments and accounts keyed by id, refunds (and the inbox) as rows
// sorted by every column.
func (s *store) State(ctx context.Context) (map[string]any, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	payments, err := keyed(ctx, tx, `SELECT payment_id, account_id, status, sequence, authorized_minor, captured_minor, refunded_minor, currency, method, fee_bps FROM payments ORDER BY payment_id`,
		"accountId", "status", "sequence", "authorizedMinor", "capturedMinor", "refundedMinor", "currency", "method", "feeBasisPoints")
	if err != nil {
		return nil, err
	}
	accounts, err := keyed(ctx, tx, `SELECT account_id, count(*), sum(coalesce(captured_minor, 0)), sum(refunded_minor), sum(coalesce(captured_minor, 0)) - sum(refunded_minor) FROM payments GROUP BY account_id ORDER BY account_id`,
		"payments", "capturedMinor", "refundedMinor", "netMinor")
	if err != nil {
		return nil, err
	}
	refunds, err := exconsumer.Rows(ctx, tx, `SELECT refund_id, payment_id, amount_minor, currency FROM refunds ORDER BY refund_id, payment_id, amount_minor, currency`,
		"refundId", "paymentId", "amountMinor", "currency")
	if err != nil {
		return nil, err
	}
	state := map[string]any{"payments": payments, "accounts": accounts, "refunds": refunds}
	if !s.naive {
		if state["inbox"], err = exconsumer.Rows(ctx, tx, `SELECT event_id, type, payment_id FROM inbox ORDER BY event_id`, "eventId", "type", "paymentId"); err != nil {
			return nil, err
		}
	}
	return state, nil
}

// keyed runs a query whose first column is a key and returns an object of
// the rows by key, each an object of the other columns (NULLs left out).
func keyed(ctx context.Context, tx *sql.Tx, query string, cols ...string) (map[string]any, error) {
	rows, err := exconsumer.Rows(ctx, tx, query, append([]string{"_key"}, cols...)...)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, r := range rows {
		row := r.(map[string]any)
		key := fmt.Sprint(row["_key"])
		delete(row, "_key")
		for k, v := range row {
			if v == nil {
				delete(row, k)
			}
		}
		out[key] = row
	}
	return out, nil
}
