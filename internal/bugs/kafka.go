package bugs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/callout"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// Run is the catalogue consumer as a real program for evtool replay: it
// reads EVTOOL_BROKERS, EVTOOL_TOPIC, EVTOOL_GROUP, EVTOOL_WORKDIR,
// EVTOOL_ADDR, EVTOOL_DLQ_TOPIC and EVTOOL_TLS*/EVTOOL_SASL_*, consumes in the group,
// keeps its Store in EVTOOL_WORKDIR/store.json, serves GET /state and
// stops on ctx. It handles each polled batch in chunks of chunkRecords:
// under a lock on the store shared by the group's instances
// (consumer.instances), it reads the store, applies the chunk, writes the
// store atomically, then commits the chunk's offsets. Records it cannot
// read go to the DLQ topic (poison-crash: Run fails instead);
// commit-first commits before applying, revoked-commit on a timer,
// instance-state keeps its store in EVTOOL_INSTANCE_DIR and serves the
// orders of every instance's store.
func Run(ctx context.Context, bug Bug) error {
	get := func(k string) (string, error) {
		v := os.Getenv(k)
		if v == "" {
			return "", fmt.Errorf("%s is not set (run me with evtool replay)", k)
		}
		return v, nil
	}
	var brokers, topic, group, workdir, addr string
	for _, x := range []struct {
		k string
		v *string
	}{{"EVTOOL_BROKERS", &brokers}, {"EVTOOL_TOPIC", &topic}, {"EVTOOL_GROUP", &group}, {"EVTOOL_WORKDIR", &workdir}, {"EVTOOL_ADDR", &addr}} {
		v, err := get(x.k)
		if err != nil {
			return err
		}
		*x.v = v
	}
	dlqTopic := os.Getenv("EVTOOL_DLQ_TOPIC")
	dir := workdir
	if d := os.Getenv("EVTOOL_INSTANCE_DIR"); bug == InstanceState && d != "" {
		dir = d
	}
	path := filepath.Join(dir, "store.json")
	lockPath := filepath.Join(workdir, "store.lock")
	c := New(bug, NewStore())
	// reload reads the store (under the lock) into c.
	reload := func() error {
		st := NewStore()
		if b, err := os.ReadFile(path); err == nil {
			if err := json.Unmarshal(b, st); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		c.Store = st
		return nil
	}
	if err := withLock(lockPath, reload); err != nil {
		return err
	}

	var mu sync.Mutex
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var state any
		err := withLock(lockPath, func() error {
			if bug == InstanceState {
				orders, err := allInstanceOrders(workdir)
				state = map[string]any{"orders": orders}
				return err
			}
			if err := reload(); err != nil {
				return err
			}
			state = c.State()
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(state)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	opts, err := kafka.ClientConfigFromEnv(strings.Split(brokers, ","), os.Getenv).Options()
	if err != nil {
		return err
	}
	var assigned atomic.Bool
	groupOpts := []kgo.Opt{
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
	}
	if os.Getenv("BUGS_KIP848") != "" {
		groupOpts = append(groupOpts, kgo.ServerSideBalancer())
	}
	// BUGS_HEARTBEAT shortens the classic heartbeat interval (franz-go's
	// default is 3 s): a member learns of a rebalance at its next
	// heartbeat, so with the default a partition moves seconds after a
	// join, often after its records were all consumed.
	if hb, err := time.ParseDuration(os.Getenv("BUGS_HEARTBEAT")); err == nil && hb > 0 {
		groupOpts = append(groupOpts, kgo.HeartbeatInterval(hb))
	}
	if bug != RevokedCommit {
		// revoked-commit lets the group rebalance in the middle of a
		// batch, and goes on committing what it had.
		groupOpts = append(groupOpts, kgo.BlockRebalanceOnPoll())
	}
	// revoked-commit stops working on a partition once it is revoked or
	// lost, as it should, but never drops it from the offsets its timer
	// commits: those offsets go back once the new owner committed past
	// them.
	var pendMu sync.Mutex
	pending := map[int32]int64{}
	revoked := map[int32]bool{}
	markRevoked := func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
		pendMu.Lock()
		defer pendMu.Unlock()
		for _, p := range ps[topic] {
			revoked[p] = true
		}
	}
	newClient := func() (*kgo.Client, error) {
		return kgo.NewClient(append(append(opts, groupOpts...),
			// An eager balancer too, so an eager member can join the group.
			balancers(),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
				assigned.Store(true)
				pendMu.Lock()
				defer pendMu.Unlock()
				for _, p := range ps[topic] {
					delete(revoked, p)
				}
			}),
			kgo.OnPartitionsRevoked(markRevoked),
			kgo.OnPartitionsLost(markRevoked),
			kgo.FetchMaxWait(500*time.Millisecond), // see examples/orders/consumer
		)...)
	}
	cl, err := newClient()
	if err != nil {
		return err
	}
	defer func() { cl.Close() }()
	log.Printf("%s consumer on %s as group %s", bug, topic, group)

	// revoked-commit: the next offset per partition it ever applied,
	// committed on a timer whoever owns the partition now.
	if bug == RevokedCommit {
		cl := cl // its commits never restart the client
		go func() {
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				pendMu.Lock()
				offs := map[int32]kgo.EpochOffset{}
				for p, o := range pending {
					offs[p] = kgo.EpochOffset{Epoch: -1, Offset: o}
				}
				pendMu.Unlock()
				if len(offs) > 0 {
					cl.CommitOffsets(ctx, map[string]map[int32]kgo.EpochOffset{topic: offs}, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
						if err == nil {
							err = kerr.ErrorForCode(firstCommitError(resp))
						}
						if err != nil {
							log.Printf("revoked-commit: commit %v: %v", offs, err)
						}
					})
				}
			}
		}()
	}
	// BUGS_CHUNK_DELAY slows each chunk down (a slow downstream call), so
	// that rebalances strike while partitions are still being consumed.
	delay, _ := time.ParseDuration(os.Getenv("BUGS_CHUNK_DELAY"))
	// BUGS_CHUNK_RECORDS sets the chunk size (default chunkRecords): a
	// revocation lets the chunk in flight finish, so small chunks leave
	// the partition that moves part way through.
	chunkSize := chunkRecords
	if n, err := strconv.Atoi(os.Getenv("BUGS_CHUNK_RECORDS")); err == nil && n > 0 {
		chunkSize = n
	}
	// fenced is the error of a commit refused because this member is no
	// longer in the group (it stalled past its session, was evicted).
	// franz-go (v1.22.3, classic protocol) then rejoins from the commit
	// without OnPartitionsLost; if the group gives the partitions back,
	// it keeps fetching from where it was, past the records whose commits
	// were refused: nobody consumes or commits them again. So a fenced
	// consumer drops the rest of its batch and starts a new client, which
	// resumes from the group's committed offsets (the inbox dedupes what
	// it applies again).
	var fenced error
	ml := newMailer(bug)
	commit := func(recs []*kgo.Record) {
		time.Sleep(delay)
		if bug == RevokedCommit {
			pendMu.Lock()
			for _, r := range recs {
				pending[r.Partition] = max(pending[r.Partition], r.Offset+1)
			}
			pendMu.Unlock()
			return
		}
		if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
			log.Printf("commit: %v", err)
			if c.RestartsWhenFenced() && (errors.Is(err, kerr.UnknownMemberID) || errors.Is(err, kerr.IllegalGeneration)) {
				fenced = err
			}
		}
	}
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			cl.AllowRebalance()
			return nil
		}
		recs := fs.Records()
		if bug == RevokedCommit {
			recs = interleave(recs)
		}
		for len(recs) > 0 && fenced == nil {
			chunk := recs[:min(len(recs), chunkSize)]
			recs = recs[len(chunk):]
			if bug == RevokedCommit {
				pendMu.Lock()
				chunk = slices.DeleteFunc(slices.Clone(chunk), func(r *kgo.Record) bool { return revoked[r.Partition] })
				pendMu.Unlock()
				if len(chunk) == 0 {
					continue
				}
			}
			if err := handleChunk(ctx, cl, c, ml, chunk, &mu, lockPath, path, dlqTopic, reload, &assigned, commit); err != nil {
				cl.AllowRebalance()
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		cl.AllowRebalance()
		if fenced != nil {
			log.Printf("fenced (%v): a new client, from the group's committed offsets", fenced)
			cl.Close()
			if cl, err = newClient(); err != nil {
				return err
			}
			fenced = nil
		}
	}
}

// interleave orders a batch's records partition by partition in turn
// (each partition's in offset order), so every partition of a batch is
// part processed at any time: the one the group moves holds records its
// old owner applied and records it had not reached.
func interleave(recs []*kgo.Record) []*kgo.Record {
	by := map[int32][]*kgo.Record{}
	var parts []int32
	for _, r := range recs {
		if _, ok := by[r.Partition]; !ok {
			parts = append(parts, r.Partition)
		}
		by[r.Partition] = append(by[r.Partition], r)
	}
	out := make([]*kgo.Record, 0, len(recs))
	for len(out) < len(recs) {
		for _, p := range parts {
			if q := by[p]; len(q) > 0 {
				out, by[p] = append(out, q[0]), q[1:]
			}
		}
	}
	return out
}

// balancers are the group's: cooperative-sticky and range (classic), or
// with BUGS_KIP848 set the broker's assignor (KIP-848; range asked for).
func balancers() kgo.Opt {
	if os.Getenv("BUGS_KIP848") != "" {
		return kgo.Balancers(kgo.RangeBalancer())
	}
	return kgo.Balancers(kgo.CooperativeStickyBalancer(), kgo.RangeBalancer())
}

// chunkRecords is how many records of a batch are applied and committed
// together.
const chunkRecords = 20

// handleChunk applies and commits one chunk of a batch.
// With a mailer it sends the chunk's receipts first, and dead-letters the
// events whose receipt failed terminally or ran out of attempts.
func handleChunk(ctx context.Context, cl *kgo.Client, c *Consumer, ml *mailer, recs []*kgo.Record, mu *sync.Mutex, lockPath, path, dlqTopic string,
	reload func() error, assigned *atomic.Bool, commit func([]*kgo.Record)) error {
	if c.CommitsFirst() {
		commit(recs)
	}
	var dead []*kgo.Record
	mu.Lock()
	err := withLock(lockPath, func() error {
		if err := reload(); err != nil {
			return err
		}
		if assigned.Swap(false) {
			c.Assigned()
		}
		failed := map[*kgo.Record]error{}
		if ml != nil {
			var ms []*mail
			seen := map[string]bool{}
			for _, r := range recs {
				if in, err := decodeRecord(r); err == nil && !c.Store.Inbox[in.ID] && !seen[in.ID] {
					seen[in.ID] = true
					ms = append(ms, &mail{in: in, rec: r})
				}
			}
			ml.send(ctx, ms)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ml.bug == ProcessSaltedKey {
				if ml.pause(ctx, ms); ctx.Err() != nil {
					return ctx.Err()
				}
				if err := firstPassDone(ctx, cl, c, ms, recs, path, dlqTopic, commit); err != nil {
					return err
				}
				if ml.retryFailed(ctx, ms); ctx.Err() != nil {
					return ctx.Err()
				}
			}
			for _, x := range ms {
				if x.err != nil {
					failed[x.rec] = x.err
				}
			}
		}
		for _, r := range recs {
			in, err := decodeRecord(r)
			if err == nil && failed[r] != nil {
				dead = append(dead, deadLetter(dlqTopic, r, failed[r]))
			}
			if err != nil {
				if c.CrashesOnPoison() {
					return fmt.Errorf("record %s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
				}
				dead = append(dead, deadLetter(dlqTopic, r, err))
				continue
			}
			c.Apply(in, r.Partition, r.Offset)
		}
		if c.Bug == EffectBeforeDedupe && ml != nil {
			return nil // saved after the commit, below
		}
		return save(path, c.Store)
	})
	mu.Unlock()
	if err != nil {
		return err
	}
	dead = slices.DeleteFunc(dead, func(r *kgo.Record) bool { return r == nil })
	if len(dead) > 0 {
		if err := cl.ProduceSync(ctx, dead...).FirstErr(); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("dead letters: %w", err)
		}
	}
	if !c.CommitsFirst() {
		commit(recs)
	}
	if c.Bug == EffectBeforeDedupe && ml != nil {
		mu.Lock()
		defer mu.Unlock()
		return withLock(lockPath, func() error { return save(path, c.Store) })
	}
	return nil
}

// deadLetter builds the DLQ record of r (nil without a DLQ topic).
func deadLetter(topic string, r *kgo.Record, err error) *kgo.Record {
	if topic == "" {
		return nil
	}
	h := append(append([]kgo.RecordHeader(nil), r.Headers...), kgo.RecordHeader{Key: "error", Value: []byte(err.Error())},
		kgo.RecordHeader{Key: "source-offset", Value: []byte(strconv.FormatInt(r.Offset, 10))})
	return &kgo.Record{Topic: topic, Key: r.Key, Value: r.Value, Headers: h}
}

// allInstanceOrders merges the orders of every instance's store
// (instance-state): for each order the row of the highest version.
func allInstanceOrders(workdir string) (map[string]*Order, error) {
	files, _ := filepath.Glob(filepath.Join(workdir, "instance-*", "store.json"))
	out := map[string]*Order{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		st := NewStore()
		if err := json.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for id, o := range st.Orders {
			if cur := out[id]; cur == nil || o.Version > cur.Version {
				out[id] = o
			}
		}
	}
	return out, nil
}

// firstCommitError is the first partition error code of a commit response.
func firstCommitError(resp *kmsg.OffsetCommitResponse) int16 {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return p.ErrorCode
			}
		}
	}
	return 0
}

func decodeRecord(r *kgo.Record) (Input, error) {
	d, fs, err := envelope.FromRecord(r)
	if err != nil {
		return Input{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if d == nil {
		return Input{}, fmt.Errorf("%w: not a CloudEvent", ErrUnreadable)
	}
	for _, f := range fs {
		if f.Severity == report.SeverityError {
			return Input{}, fmt.Errorf("%w: %s %s", ErrUnreadable, f.Pointer, f.Message)
		}
	}
	return Decode(d.Event)
}

// save writes the store atomically (a crash leaves the old or the new).
func save(path string, st *Store) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// firstPassDone is process-salted-key's record of its first pass: every
// event whose receipt was sent is applied and saved, and the chunk's
// records below the first failed one of each partition committed, before
// the failed calls are retried.
func firstPassDone(ctx context.Context, cl *kgo.Client, c *Consumer, ms []*mail, recs []*kgo.Record, path, dlqTopic string, commit func([]*kgo.Record)) error {
	failed := map[*kgo.Record]bool{}
	var dead []*kgo.Record
	for _, x := range ms {
		switch {
		case errors.Is(x.err, callout.ErrTerminal):
			// Dead-lettered now, before the commit that passes it, and
			// recorded done below: never sent again.
			if r := deadLetter(dlqTopic, x.rec, x.err); r != nil {
				dead = append(dead, r)
			}
			x.err = nil
		case x.err != nil:
			failed[x.rec] = true
		}
	}
	if len(failed) == 0 && len(dead) == 0 {
		return nil
	}
	if len(dead) > 0 {
		if err := cl.ProduceSync(ctx, dead...).FirstErr(); err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
	}
	stopped := map[int32]bool{}
	var done []*kgo.Record
	for _, r := range recs {
		in, err := decodeRecord(r)
		// A record that cannot be read is dead-lettered with the rest of
		// the chunk, before its commit.
		if err != nil || failed[r] {
			stopped[r.Partition] = true
			continue
		}
		c.Apply(in, r.Partition, r.Offset)
		if !stopped[r.Partition] {
			done = append(done, r)
		}
	}
	if err := save(path, c.Store); err != nil {
		return err
	}
	if len(done) > 0 {
		commit(done)
	}
	return nil
}
