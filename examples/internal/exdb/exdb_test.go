package exdb

import (
	"path/filepath"
	"testing"
)

// TestOpenConcurrently: processes that start together on a new database
// all open it. Without the retry, 1 run in 2 failed with SQLITE_BUSY.
func TestOpenConcurrently(t *testing.T) {
	for round := 0; round < 20; round++ {
		path := filepath.Join(t.TempDir(), "db")
		errs := make(chan error, 6)
		for i := 0; i < cap(errs); i++ {
			go func() {
				db, err := Open(path, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate", "CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY); INSERT OR IGNORE INTO t VALUES ('x');")
				if err == nil {
					db.Close()
				}
				errs <- err
			}()
		}
		for i := 0; i < cap(errs); i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
