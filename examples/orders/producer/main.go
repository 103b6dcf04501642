// Command producer is the orders service's write side, as evtool verify
// tests it: an HTTP API that takes order events with an Idempotency-Key,
// writes the order and an outbox row in one SQLite transaction, and a relay
// that publishes outbox rows with an idempotent franz-go producer and marks
// them published. One relay at a time holds the outbox (a lease row), so
// several instances over one database never publish one key out of order.
//
// -bug turns on a classic producer bug, each of which evtool verify catches
// under the fault that exposes it:
//
//	fresh-id               the relay gives an event a new id on every publish
//	                       attempt (a crash after the append: duplicate-new-id)
//	publish-before-commit  publish inside the transaction, before the commit
//	                       (a rollback: phantom)
//	no-outbox              commit, then publish from the request, no outbox
//	                       (a crash before the append: lost)
//	unclaimed-relays       relays take rows one at a time with no lease
//	                       (two relays: out-of-order)
//
// -relay-delay D makes the relay wait D after each start before it
// publishes: a correct producer that is slow to catch up, as on a loaded
// machine, which evtool verify must not judge as losing events.
//
// Environment (set by evtool verify): EVTOOL_BROKERS, EVTOOL_TOPIC,
// EVTOOL_WORKDIR (the database), EVTOOL_ADDR (the API), EVTOOL_INSTANCE.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/examples/internal/exdb"
	"github.com/evtool/evtool/kafka"
)

// The bugs -bug turns on.
const (
	bugFreshID             = "fresh-id"
	bugPublishBeforeCommit = "publish-before-commit"
	bugNoOutbox            = "no-outbox"
	bugUnclaimedRelays     = "unclaimed-relays"
)

// leaseTTL is how long a relay holds the outbox without renewing it.
const leaseTTL = time.Second

func main() {
	bug := flag.String("bug", "", "turn on a classic producer bug: fresh-id, publish-before-commit, no-outbox, unclaimed-relays")
	relayDelay := flag.Duration("relay-delay", 0, "wait this long after each start before the relay publishes (a slow start, as on a loaded machine)")
	flag.Parse()
	switch *bug {
	case "", bugFreshID, bugPublishBeforeCommit, bugNoOutbox, bugUnclaimedRelays:
	default:
		log.Fatalf("producer: -bug %q: want fresh-id, publish-before-commit, no-outbox or unclaimed-relays", *bug)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *bug, *relayDelay); err != nil {
		log.Fatalf("producer: %v", err)
	}
}

type service struct {
	db         *sql.DB
	cl         *kgo.Client
	bug        string
	relay      string
	source     string
	relayDelay time.Duration
}

func run(ctx context.Context, bug string, relayDelay time.Duration) error {
	for _, k := range []string{"EVTOOL_BROKERS", "EVTOOL_TOPIC", "EVTOOL_WORKDIR", "EVTOOL_ADDR"} {
		if os.Getenv(k) == "" {
			return fmt.Errorf("%s is not set (run me with evtool verify)", k)
		}
	}
	db, err := openDB(filepath.Join(os.Getenv("EVTOOL_WORKDIR"), "orders.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	opts, err := kafka.ClientConfigFromEnv(strings.Split(os.Getenv("EVTOOL_BROKERS"), ","), os.Getenv).Options()
	if err != nil {
		return err
	}
	// Idempotent (franz-go's default): a retried batch is deduplicated by
	// the broker and one partition keeps its order.
	cl, err := kgo.NewClient(append(opts,
		kgo.DefaultProduceTopic(os.Getenv("EVTOOL_TOPIC")),
		kgo.MetadataMinAge(100*time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	s := &service{db: db, cl: cl, bug: bug, relay: "relay-" + os.Getenv("EVTOOL_INSTANCE"), source: "/orders-service", relayDelay: relayDelay}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /events", s.postEvent)
	mux.HandleFunc("GET /facts", s.facts)
	srv := &http.Server{Addr: os.Getenv("EVTOOL_ADDR"), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if bug != bugNoOutbox {
		go s.relayLoop(ctx)
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func openDB(path string) (*sql.DB, error) {
	return exdb.Open(path, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate", producerSchema)
}

const producerSchema = `
CREATE TABLE IF NOT EXISTS orders (order_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS requests (idempotency_key TEXT PRIMARY KEY, event_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL,
  data TEXT NOT NULL, published INTEGER NOT NULL DEFAULT 0, claimed_by TEXT);
CREATE TABLE IF NOT EXISTS lease (id INTEGER PRIMARY KEY CHECK (id = 1), owner TEXT, expires INTEGER NOT NULL);
INSERT OR IGNORE INTO lease (id, owner, expires) VALUES (1, NULL, 0);`

type eventRequest struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// postEvent records one order event. A request whose Idempotency-Key was
// seen is answered with the event it made, and changes nothing.
func (s *service) postEvent(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key header required", http.StatusBadRequest)
		return
	}
	var req eventRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || req.Type == "" {
		http.Error(w, "want {\"type\": ..., \"data\": {...}}", http.StatusBadRequest)
		return
	}
	var data struct {
		OrderID      string `json:"orderId"`
		OrderVersion int    `json:"orderVersion"`
	}
	if err := json.Unmarshal(req.Data, &data); err != nil || data.OrderID == "" || data.OrderVersion < 1 {
		http.Error(w, "data needs orderId and orderVersion", http.StatusBadRequest)
		return
	}
	failAfterWrite := r.Header.Get("X-Evtool-Fail-After-Write") == "1"
	ctx := r.Context()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer tx.Rollback()
	var done string
	switch err := tx.QueryRowContext(ctx, `SELECT event_id FROM requests WHERE idempotency_key = ?`, key).Scan(&done); {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"id": done, "replayed": "true"})
		return
	case !errors.Is(err, sql.ErrNoRows):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	id := newID()
	published := 0
	if s.bug == bugPublishBeforeCommit || s.bug == bugNoOutbox {
		published = 1 // the request publishes it; the relay must not
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO orders (order_id, version) VALUES (?, ?)
ON CONFLICT (order_id) DO UPDATE SET version = excluded.version`, data.OrderID, data.OrderVersion)
	if err == nil {
		_, err = tx.ExecContext(ctx, `INSERT INTO outbox (event_id, type, key, version, data, published) VALUES (?, ?, ?, ?, ?, ?)`,
			id, req.Type, data.OrderID, data.OrderVersion, string(req.Data), published)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, `INSERT INTO requests (idempotency_key, event_id) VALUES (?, ?)`, key, id)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	row := outboxRow{id: id, typ: req.Type, key: data.OrderID, data: req.Data}
	if s.bug == bugPublishBeforeCommit {
		if err := s.publish(ctx, row); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	if failAfterWrite {
		http.Error(w, "failing after the write, as asked (rolled back)", http.StatusInternalServerError)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if s.bug == bugNoOutbox {
		// Committed: a crash before this publish loses the event, and the
		// client's retry finds the request done.
		if err := s.publish(ctx, row); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
}

// facts lists every committed event: what must reach the topic.
func (s *service) facts(w http.ResponseWriter, r *http.Request) {
	rows, err := s.db.QueryContext(r.Context(), `SELECT event_id, type, key, version FROM outbox ORDER BY seq`)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer rows.Close()
	type fact struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Key  string `json:"key"`
		Seq  int    `json:"seq"`
	}
	out := []fact{}
	for rows.Next() {
		var f fact
		if err := rows.Scan(&f.ID, &f.Type, &f.Key, &f.Seq); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

type outboxRow struct {
	seq          int64
	id, typ, key string
	data         json.RawMessage
}

// relayLoop publishes the outbox in order while this relay holds the
// lease, and marks what the broker acknowledged.
func (s *service) relayLoop(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(s.relayDelay):
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var err error
		if s.bug == bugUnclaimedRelays {
			err = s.relayOneRow(ctx)
		} else {
			err = s.relayBatch(ctx)
		}
		if err != nil && ctx.Err() == nil {
			log.Printf("relay: %v", err)
		}
	}
}

func (s *service) holdLease(ctx context.Context) (bool, error) {
	now := time.Now()
	res, err := s.db.ExecContext(ctx, `UPDATE lease SET owner = ?, expires = ? WHERE id = 1 AND (owner = ? OR owner IS NULL OR expires < ?)`,
		s.relay, now.Add(leaseTTL).UnixMilli(), s.relay, now.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s *service) relayBatch(ctx context.Context) error {
	ok, err := s.holdLease(ctx)
	if err != nil || !ok {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, event_id, type, key, data FROM outbox WHERE published = 0 ORDER BY seq LIMIT 100`)
	if err != nil {
		return err
	}
	var batch []outboxRow
	for rows.Next() {
		var r outboxRow
		var data string
		if err := rows.Scan(&r.seq, &r.id, &r.typ, &r.key, &data); err != nil {
			rows.Close()
			return err
		}
		r.data = json.RawMessage(data)
		batch = append(batch, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(batch) == 0 {
		return err
	}
	for i := range batch {
		if s.bug == bugFreshID {
			batch[i].id = newID() // the bug: the stored id is not the one sent
		}
	}
	if err := s.publish(ctx, batch...); err != nil {
		return err
	}
	for _, r := range batch {
		if _, err := s.db.ExecContext(ctx, `UPDATE outbox SET published = 1, event_id = ? WHERE seq = ?`, r.id, r.seq); err != nil {
			return err
		}
	}
	return nil
}

// relayOneRow is the unclaimed-relays bug: each relay takes the oldest
// free row for itself, with no lease over the outbox, so two relays publish
// one order's successive events at the same time.
func (s *service) relayOneRow(ctx context.Context) error {
	for {
		var r outboxRow
		var data string
		err := s.db.QueryRowContext(ctx, `UPDATE outbox SET claimed_by = ? WHERE seq = (
  SELECT seq FROM outbox WHERE published = 0 AND claimed_by IS NULL ORDER BY seq LIMIT 1)
RETURNING seq, event_id, type, key, data`, s.relay).Scan(&r.seq, &r.id, &r.typ, &r.key, &data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		r.data = json.RawMessage(data)
		// While this publish is on its way, another relay publishes the
		// next row.
		if err := s.publish(ctx, r); err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE outbox SET published = 1 WHERE seq = ?`, r.seq); err != nil {
			return err
		}
	}
}

// publish sends rows as binary-mode CloudEvents keyed by order id and
// waits for the broker's acknowledgement.
func (s *service) publish(ctx context.Context, rows ...outboxRow) error {
	recs := make([]*kgo.Record, 0, len(rows))
	for _, r := range rows {
		e := event.New()
		e.SetID(r.id)
		e.SetSource(s.source)
		e.SetType(r.typ)
		e.SetSubject(r.key)
		e.SetDataSchema("https://schemas.example.com/" + r.typ + "/v1.json")
		if err := e.SetData(event.ApplicationJSON, []byte(r.data)); err != nil {
			return err
		}
		rec, err := envelope.ToRecord(ctx, &e, envelope.ModeBinary, envelope.WithKeyFromData("/orderId"))
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.cl.ProduceSync(pctx, recs...).FirstErr()
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
