// Package exconsumer is the Kafka side shared by the example consumers
// (examples/orders, examples/payments, examples/inventory): the
// environment evtool replay passes, a consumer group that commits only
// after a batch was applied (and starts a new client when a commit is
// refused because the member was evicted), dead-lettering of what cannot
// be read, the
// GET /state endpoint, and reading a record into a CloudEvent (checked
// against the catalog, for the Avro and Protobuf catalogs). What an event
// means is the example's own code.
package exconsumer

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/examples/internal/exdb"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// Env is what evtool replay passes to a consumer.
type Env struct {
	Brokers []string
	Topic   string
	Group   string
	Workdir string
	Addr    string
}

// ReadEnv reads EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR
// and EVTOOL_ADDR; each is required.
func ReadEnv() (Env, error) {
	var e Env
	var brokers string
	for _, v := range []struct {
		name string
		into *string
	}{
		{"EVTOOL_BROKERS", &brokers}, {"EVTOOL_TOPIC", &e.Topic}, {"EVTOOL_GROUP", &e.Group},
		{"EVTOOL_WORKDIR", &e.Workdir}, {"EVTOOL_ADDR", &e.Addr},
	} {
		*v.into = os.Getenv(v.name)
		if *v.into == "" {
			return e, fmt.Errorf("%s is not set (this consumer is meant to be started by evtool replay)", v.name)
		}
	}
	e.Brokers = strings.Split(brokers, ",")
	return e, nil
}

// Reject is an event a consumer cannot apply. Kind names why:
// undecodable, unknown-type, unknown-version, unknown-schema-id or
// invalid-data; it goes to
// the dead letter's dlq.error.kind header.
type Reject struct {
	Kind string
	Err  error
}

func (e *Reject) Error() string { return e.Kind + ": " + e.Err.Error() }
func (e *Reject) Unwrap() error { return e.Err }

// Event is a record read as a CloudEvent of the catalog: its version (the
// writer's, from dataschema) and its data bytes as they came.
type Event struct {
	CloudEvent  event.Event
	ID          string
	Type        string
	Version     *catalog.Version
	ContentType string
	Data        []byte
}

// Reader reads records into events of one catalog.
type Reader struct {
	Catalog   *catalog.Catalog
	validator *envelope.Validator
	ids       *catalog.SchemaIDs
}

// NewReader loads the catalog in fsys (evtool.yaml at its root; display
// names it in errors).
func NewReader(fsys fs.FS, display string) (*Reader, error) {
	cat, err := catalog.LoadFS(fsys, display)
	if err != nil {
		return nil, err
	}
	ids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		return nil, err
	}
	return &Reader{Catalog: cat, validator: &envelope.Validator{Catalog: cat, IDs: ids}, ids: ids}, nil
}

// Read decodes the CloudEvent in a record (binary or structured mode) and
// checks it against the catalog: a type it has, a version of that type,
// data that is a datum of that version (binary, Confluent framing
// under one of the catalog's registry ids, or the JSON form). Anything
// else is a *Reject.
func (rd *Reader) Read(r *kgo.Record) (Event, error) {
	d, err := DecodeRecord(r)
	if err != nil {
		return Event{}, err
	}
	ver, findings := rd.validator.Check(d)
	for _, f := range findings {
		if f.Severity != report.SeverityError {
			continue
		}
		kind := "invalid-data"
		switch f.Rule {
		case envelope.RuleUnknownType:
			kind = "unknown-type"
		case envelope.RuleUnknownVersion, envelope.RuleDataSchemaTemplate, envelope.RuleDataSchemaType:
			kind = "unknown-version"
		case envelope.RuleSchemaIDUnknown:
			kind = "unknown-schema-id"
		}
		return Event{}, &Reject{kind, fmt.Errorf("event %q: %s", d.Event.ID(), describe(f))}
	}
	if ver == nil || ver.Compiled == nil {
		return Event{}, &Reject{"unknown-version", fmt.Errorf("event %q: no version of %s to read it with", d.Event.ID(), d.Event.Type())}
	}
	// A frame names the writer's schema by registry id. A catalog without
	// ids (no registry) has no framed data: an id is a schema this
	// consumer cannot know, whatever the bytes after it decode to.
	if format.HasBinaryData(formats.Of(ver.Compiled)) && !format.IsJSON(d.Event.DataContentType()) {
		if _, id, framed := envelope.DataFrame(ver.Compiled, rd.Catalog.Framing(rd.Catalog.Lookup(ver.Type)), d.RawData); framed && !rd.ids.Known(id) {
			return Event{}, &Reject{"unknown-schema-id", fmt.Errorf("event %q: data framed with schema id %d, which is not a registry id of the catalog", d.Event.ID(), id)}
		}
	}
	if d.JSONFramed && !rd.ids.Known(d.JSONFrameID) {
		return Event{}, &Reject{"unknown-schema-id", fmt.Errorf("event %q: JSON data framed with schema id %d, which is not a registry id of the catalog", d.Event.ID(), d.JSONFrameID)}
	}
	return Event{CloudEvent: d.Event, ID: d.Event.ID(), Type: d.Event.Type(), Version: ver, ContentType: d.Event.DataContentType(), Data: d.RawData}, nil
}

// DecodeRecord decodes the CloudEvent in a record (binary or structured
// mode). A record that holds none, or one that breaks a CloudEvents rule,
// is an undecodable *Reject.
func DecodeRecord(r *kgo.Record) (*envelope.Decoded, error) {
	d, findings, err := envelope.FromRecord(r)
	if err != nil {
		return nil, &Reject{"undecodable", err}
	}
	if d == nil {
		return nil, &Reject{"undecodable", fmt.Errorf("not a readable CloudEvent: %s", firstError(findings))}
	}
	if msg := firstError(findings); msg != "" {
		return nil, &Reject{"undecodable", fmt.Errorf("event %q: %s", d.Event.ID(), msg)}
	}
	return d, nil
}

func describe(f report.Finding) string {
	if f.Pointer != "" {
		return f.Pointer + ": " + f.Message
	}
	return f.Message
}

func firstError(fs []report.Finding) string {
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return describe(f)
		}
	}
	return ""
}

// Loop is one consumer's work: Decode turns a record into what Apply
// takes (a *Reject, or any error, dead-letters the record); Apply applies
// a batch in one transaction and says how many had an effect; State is
// served on GET /state.
type Loop[E any] struct {
	Name     string // for the log
	DLQTopic string // "": log and skip records that cannot be read
	Decode   func(*kgo.Record) (E, error)
	Apply    func(context.Context, []E) (int, error)
	State    func(context.Context) (any, error)
	// WriteState, when set, serves GET /state instead of State: it
	// writes the state's JSON as it reads it, so that a state of a
	// million rows is neither built as Go values nor encoded whole in
	// memory before the first byte goes out.
	WriteState func(context.Context, io.Writer) error
	// BatchSize caps the records applied (and committed) together
	// (default 200): a crash redelivers at most one batch.
	BatchSize int
	// Call, when set, makes the batch's calls to a downstream service
	// before Apply, and returns the error of each event (by index) whose
	// call failed for good (terminal, or out of attempts): those events
	// are dead-lettered with it, and applied like the others. A crash
	// after a call and before the commit makes the call again: Call must
	// pass a key derived from the event that the service deduplicates on.
	Call func(ctx context.Context, events []E) map[int]error
}

// Run serves the state and consumes env.Topic until ctx ends. Offsets are
// committed only after the batch's transaction committed and its dead
// letters were written, so a crash redelivers instead of losing. A commit
// refused because the member was evicted (it stalled past its session)
// closes the client and starts a new one, which resumes from the group's
// committed offsets: Apply gets those records again and must skip what it
// already applied (the examples' inbox).
func (l Loop[E]) Run(ctx context.Context, env Env) error {
	ln, err := net.Listen("tcp", env.Addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		if l.WriteState != nil {
			serveState(w, r, l.WriteState)
			return
		}
		state, err := l.State(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(state)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	opts, err := kafka.ClientConfigFromEnv(env.Brokers, os.Getenv).Options()
	if err != nil {
		return err
	}
	opts = append(opts,
		kgo.ConsumerGroup(env.Group),
		kgo.ConsumeTopics(env.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		// A partition assigned while a fetch long-polls is read only when
		// that fetch returns: keep the wait short after a restart.
		kgo.FetchMaxWait(500*time.Millisecond),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer func() { // the client of the moment (see fenced)
		if cl != nil {
			cl.Close()
		}
	}()
	log.Printf("%s: consuming %s as group %s; state on http://%s/state; dead letters to %q", l.Name, env.Topic, env.Group, env.Addr, l.DLQTopic)

	batch := l.BatchSize
	if batch <= 0 {
		batch = 200
	}
	var applied, skipped, dead int64
	fenced := false // the last commit was refused: this member was evicted
	for {
		fetches := cl.PollRecords(ctx, batch)
		if ctx.Err() != nil {
			cl.AllowRebalance() // or Close would wait for it
			break
		}
		for _, e := range fetches.Errors() {
			if !errors.Is(e.Err, context.Canceled) {
				log.Printf("fetch %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		recs := fetches.Records()
		if len(recs) > 0 {
			events := make([]E, 0, len(recs))
			from := make([]*kgo.Record, 0, len(recs)) // the record of each event
			var dlq []*kgo.Record
			for _, r := range recs {
				ev, err := l.Decode(r)
				if err != nil {
					if l.DLQTopic == "" {
						log.Printf("skipping %s/%d@%d: %v", r.Topic, r.Partition, r.Offset, err)
						continue
					}
					dlq = append(dlq, DeadLetter(r, l.DLQTopic, err))
					continue
				}
				events = append(events, ev)
				from = append(from, r)
			}
			if l.Call != nil {
				failed := l.Call(ctx, events)
				if ctx.Err() != nil {
					cl.AllowRebalance()
					break
				}
				for i := range events {
					if err := failed[i]; err != nil {
						if l.DLQTopic == "" {
							log.Printf("%s/%d@%d: %v", from[i].Topic, from[i].Partition, from[i].Offset, err)
							continue
						}
						dlq = append(dlq, DeadLetter(from[i], l.DLQTopic, &Reject{Kind: "downstream", Err: err}))
					}
				}
			}
			if len(dlq) > 0 {
				// Written before the offsets are committed: a crash in
				// between writes them again, never loses them.
				if err := cl.ProduceSync(ctx, dlq...).FirstErr(); err != nil {
					cl.AllowRebalance()
					if ctx.Err() != nil {
						break
					}
					return fmt.Errorf("writing %d record(s) to the dead-letter topic %s: %w", len(dlq), l.DLQTopic, err)
				}
				dead += int64(len(dlq))
			}
			n, err := l.Apply(ctx, events)
			if err != nil {
				cl.AllowRebalance()
				return fmt.Errorf("applying %d events: %w", len(events), err)
			}
			applied += int64(n)
			skipped += int64(len(events) - n)
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				log.Printf("commit: %v", err)
				fenced = isFenced(err)
			}
		}
		cl.AllowRebalance()
		if fenced {
			// The group refused the commit because this member is no
			// longer in it: it stalled past its session (a GC pause, a
			// slow call, SIGSTOP) and was evicted. franz-go (v1.22.3,
			// classic protocol) rejoins from the refused commit without
			// OnPartitionsLost; if the group gives it the same
			// partitions back they are not newly assigned, so it fetches
			// no committed offsets and goes on from where it was, past
			// the records whose commit was refused: nobody would read or
			// commit them again. A new client starts from the group's
			// committed offsets instead; Apply skips what it applies
			// again (the examples' inbox).
			log.Printf("fenced: closing the client and starting a new one from the group's committed offsets")
			cl.Close()
			next, err := kgo.NewClient(opts...)
			if err != nil {
				cl = nil // closed: the deferred Close must not close it again
				return err
			}
			cl, fenced = next, false
		}
	}
	log.Printf("stopping: %d events applied, %d skipped as duplicates, %d dead-lettered", applied, skipped, dead)
	return nil
}

// serveState streams a state written by write. An error before the
// first byte is a 500; after it, the connection is cut, so that the
// client sees a truncated body rather than a state that looks whole.
func serveState(w http.ResponseWriter, r *http.Request, write func(context.Context, io.Writer) error) {
	w.Header().Set("Content-Type", "application/json")
	sw := &startedWriter{w: w}
	bw := bufio.NewWriterSize(sw, 64<<10)
	err := write(r.Context(), bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		return
	}
	if !sw.started {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	log.Printf("GET /state: %v (response cut)", err)
	panic(http.ErrAbortHandler)
}

// startedWriter notes whether anything was written through it.
type startedWriter struct {
	w       io.Writer
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started = true
	return s.w.Write(p)
}

// isFenced reports whether a commit was refused because the member is no
// longer in the group (classic protocol: UNKNOWN_MEMBER_ID once evicted,
// ILLEGAL_GENERATION once the group moved to a newer generation or has
// no members).
func isFenced(err error) bool {
	return errors.Is(err, kerr.UnknownMemberID) || errors.Is(err, kerr.IllegalGeneration)
}

// DeadLetter is the DLQ record of a record that cannot be applied: its
// key, value and headers as they came, plus headers naming the error and
// where the record came from.
func DeadLetter(r *kgo.Record, topic string, err error) *kgo.Record {
	kind := "unreadable"
	var re *Reject
	if errors.As(err, &re) {
		kind = re.Kind
	}
	h := append([]kgo.RecordHeader(nil), r.Headers...)
	h = append(h,
		kgo.RecordHeader{Key: "dlq.error", Value: []byte(err.Error())},
		kgo.RecordHeader{Key: "dlq.error.kind", Value: []byte(kind)},
		kgo.RecordHeader{Key: "dlq.source.topic", Value: []byte(r.Topic)},
		kgo.RecordHeader{Key: "dlq.source.partition", Value: []byte(strconv.Itoa(int(r.Partition)))},
		kgo.RecordHeader{Key: "dlq.source.offset", Value: []byte(strconv.FormatInt(r.Offset, 10))},
	)
	return &kgo.Record{Topic: topic, Key: r.Key, Value: r.Value, Headers: h}
}

// ApplyBatch applies a batch of events in one transaction of db and
// returns how many had an effect: apply says false for a duplicate. An
// error, named by the event's name, rolls the whole batch back.
func ApplyBatch[E any](ctx context.Context, db *sql.DB, events []E, apply func(context.Context, *sql.Tx, E) (bool, error), name func(E) string) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	n := 0
	for _, e := range events {
		applied, err := apply(ctx, tx, e)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name(e), err)
		}
		if applied {
			n++
		}
	}
	return n, tx.Commit()
}

// Querier is what Rows reads from: a *sql.DB or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Rows runs query and returns its rows as objects keyed by cols, in the
// query's order: the tables of a consumer's state.
func Rows(ctx context.Context, q Querier, query string, cols ...string) ([]any, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := map[string]any{}
		for i, c := range cols {
			row[c] = vals[i]
		}
		list = append(list, row)
	}
	return list, rows.Err()
}

// OpenSQLite opens (creating) the SQLite database at path with the given
// schema applied. One connection: the consumer is one writer, and SQLite
// serialises writers anyway.
func OpenSQLite(path, schema string) (*sql.DB, error) {
	return exdb.Open(path, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)", schema)
}

// Main is an example consumer's main: it parses -naive and -dlq-topic
// (default $EVTOOL_DLQ_TOPIC), reads the environment, and runs run until
// SIGINT or SIGTERM; an error is logged and exits 1.
func Main(name string, run func(ctx context.Context, env Env, naive bool, dlqTopic string) error) {
	naive := flag.Bool("naive", false, "no dedupe and last write wins (the bugs evtool replay catches)")
	dlq := flag.String("dlq-topic", os.Getenv("EVTOOL_DLQ_TOPIC"), "dead-letter topic for events that cannot be applied (default $EVTOOL_DLQ_TOPIC; none: log and skip them)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix(name + ": ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := ReadEnv()
	if err == nil {
		err = run(ctx, env, *naive, *dlq)
	}
	if err != nil {
		log.Print(err)
		stop()
		os.Exit(1)
	}
}

// Mode names the consumer's mode in its log.
func Mode(naive bool) string {
	if naive {
		return "naive mode"
	}
	return "correct mode"
}
