package main

import (
	"context"
	"database/sql"

	"github.com/evtool/evtool/examples/internal/exconsumer"
)

// store is the stock in SQLite: one row per SKU and bin.
type store struct {
	db    *sql.DB
	naive bool
}

// stockTable is in both modes.
const stockTable = `
CREATE TABLE IF NOT EXISTS stock (
	sku            TEXT NOT NULL,
	warehouse      TEXT NOT NULL,
	bin            TEXT NOT NULL,
	received       INTEGER NOT NULL DEFAULT 0,
	reserved       INTEGER NOT NULL DEFAULT 0,
	count_revision INTEGER,           -- the highest revision of a count applied
	counted        INTEGER,           -- the quantity of that count
	PRIMARY KEY (sku, warehouse, bin)
);`

const schemaCorrect = stockTable + `
CREATE TABLE IF NOT EXISTS inbox (
	event_id TEXT PRIMARY KEY,
	type     TEXT NOT NULL,
	sku      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS movements (
	ref      TEXT PRIMARY KEY,        -- receiptId or reservationId
	type     TEXT NOT NULL,
	sku      TEXT NOT NULL,
	quantity INTEGER NOT NULL
);`

// The naive schema has no inbox and no key on movements.
const schemaNaive = stockTable + `
CREATE TABLE IF NOT EXISTS movements (
	ref      TEXT NOT NULL,
	type     TEXT NOT NULL,
	sku      TEXT NOT NULL,
	quantity INTEGER NOT NULL
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
func (s *store) Apply(ctx context.Context, events []stockEvent) (int, error) {
	return exconsumer.ApplyBatch(ctx, s.db, events, s.apply, func(e stockEvent) string { return e.Type + " " + e.ID })
}

// apply applies one event. Correct: the inbox drops a redelivered event
// in the transaction of its effect, a receipt or reservation counts once
// per id, and a count only replaces one of a lower revision. Naive: every
// delivery counts and the last count to arrive wins.
func (s *store) apply(ctx context.Context, tx *sql.Tx, e stockEvent) (bool, error) {
	if !s.naive {
		r, err := tx.ExecContext(ctx, `INSERT INTO inbox (event_id, type, sku) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, e.ID, e.Type, e.SKU)
		if err != nil {
			return false, err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return false, nil // seen before
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO stock (sku, warehouse, bin) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, e.SKU, e.Warehouse, e.Bin); err != nil {
		return false, err
	}
	if e.Type == typeCounted {
		q := `UPDATE stock SET count_revision = ?, counted = ? WHERE sku = ? AND warehouse = ? AND bin = ?`
		args := []any{e.Revision, e.Quantity, e.SKU, e.Warehouse, e.Bin}
		if !s.naive {
			q += ` AND (count_revision IS NULL OR count_revision < ?)`
			args = append(args, e.Revision)
		}
		_, err := tx.ExecContext(ctx, q, args...)
		return err == nil, err
	}
	insert := `INSERT INTO movements (ref, type, sku, quantity) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
	if s.naive {
		insert = `INSERT INTO movements (ref, type, sku, quantity) VALUES (?, ?, ?, ?)`
	}
	r, err := tx.ExecContext(ctx, insert, e.Ref, e.Type, e.SKU, e.Quantity)
	if err != nil {
		return false, err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return false, nil // this receipt or reservation was counted already
	}
	column := "received"
	if e.Type == typeReserved {
		column = "reserved"
	}
	_, err = tx.ExecContext(ctx, `UPDATE stock SET `+column+` = `+column+` + ? WHERE sku = ? AND warehouse = ? AND bin = ?`,
		e.Quantity, e.SKU, e.Warehouse, e.Bin)
	return err == nil, err
}

// State returns the stock as JSON-ready values in a deterministic order:
// rows per SKU and bin, movements (and the inbox) sorted by every column.
func (s *store) State(ctx context.Context) (map[string]any, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	stock, err := exconsumer.Rows(ctx, tx, `SELECT sku, warehouse, bin, received, reserved, received - reserved, count_revision, counted FROM stock ORDER BY sku, warehouse, bin`,
		"sku", "warehouse", "bin", "received", "reserved", "available", "countRevision", "counted")
	if err != nil {
		return nil, err
	}
	movements, err := exconsumer.Rows(ctx, tx, `SELECT ref, type, sku, quantity FROM movements ORDER BY ref, type, sku, quantity`, "ref", "type", "sku", "quantity")
	if err != nil {
		return nil, err
	}
	state := map[string]any{"stock": stock, "movements": movements}
	if !s.naive {
		if state["inbox"], err = exconsumer.Rows(ctx, tx, `SELECT event_id, type, sku FROM inbox ORDER BY event_id`, "eventId", "type", "sku"); err != nil {
			return nil, err
		}
	}
	return state, nil
}
