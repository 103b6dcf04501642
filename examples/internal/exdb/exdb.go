// Package exdb opens the SQLite databases of the example services, which
// several processes (consumer instances, relays) open at once.
package exdb

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

// Open opens (creating) the SQLite database at path with the DSN
// parameters given (pragmas, _txlock) and schema applied, on one
// connection. Processes that start together on a new database race for
// its switch to WAL, which SQLite answers with SQLITE_BUSY at once,
// whatever the busy timeout: Open retries for up to 10 s. The schema is
// applied in one transaction, so that two processes never both hold a read
// lock and want to write (a deadlock, also answered at once).
func Open(path, params, schema string) (*sql.DB, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		db, err := open(path, params, schema)
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func open(path, params, schema string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?"+params)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err == nil {
		if _, err = tx.Exec(schema); err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return db, nil
}
