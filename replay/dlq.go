package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
)

// DLQRecord is a record the consumer wrote to the dead-letter topic.
type DLQRecord struct {
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	ID        string `json:"id,omitempty"`
	// Poison is the kind of the poison event it carries ("" for a valid
	// event of the run, or a record the harness cannot place).
	Poison chaos.PoisonKind `json:"poison,omitempty"`
	// Error is the first header naming the error (name: value).
	Error string `json:"error,omitempty"`
}

// dlqRun tracks a run's dead-letter topic.
type dlqRun struct {
	topic   string
	created bool
	start   map[int32]int64
}

// prepareDLQ creates the run's DLQ topic (when missing) and notes where
// the run's records will start.
func (h *Harness) prepareDLQ(ctx context.Context, topic string) (*dlqRun, error) {
	if strings.TrimSpace(topic) == "" {
		return nil, fmt.Errorf("expect.dlq.topic %q (%s) expands to an empty topic name", h.sc.DLQ.Topic, h.sc.Where("/expect/dlq"))
	}
	d := &dlqRun{topic: topic, start: map[int32]int64{}}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := h.adm.CreateTopic(cctx, int32(h.partitions), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	switch {
	case err == nil:
		d.created = true
	case errors.Is(err, kerr.TopicAlreadyExists):
		ends, err := h.endOffsets(ctx, topic)
		if err != nil {
			return nil, err
		}
		d.start = ends
	default:
		if h.sc.DLQ == nil {
			return nil, fmt.Errorf("cannot create the DLQ topic %s (EVTOOL_DLQ_TOPIC): %w", topic, err)
		}
		return nil, fmt.Errorf("cannot create the DLQ topic %s (expect.dlq.topic, %s): %w", topic, h.sc.Where("/expect/dlq"), err)
	}
	return d, nil
}

// readDLQ reads the records the run wrote to the DLQ topic.
func (h *Harness) readDLQ(ctx context.Context, d *dlqRun) ([]*kgo.Record, error) {
	ends, err := h.endOffsets(ctx, d.topic)
	if err != nil {
		return nil, err
	}
	parts := map[int32]kgo.Offset{}
	want := 0
	for p, end := range ends {
		if s := d.start[p]; end > s {
			parts[p] = kgo.NewOffset().At(s)
			want += int(end - s)
		}
	}
	if want == 0 {
		return nil, nil
	}
	cc := h.opts.Client
	cc.Brokers = h.brokers
	o, err := cc.Options()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(o, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{d.topic: parts}))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// want counts offsets, not records: a consumer that dead-letters with
	// a transactional producer leaves commit markers, which take offsets
	// but are never returned. So reading also ends when the topic has been
	// quiet for dlqQuiet.
	var out []*kgo.Record
	for quiet := time.Duration(0); len(out) < want && quiet < dlqQuiet; {
		pctx, pcancel := context.WithTimeout(ctx, dlqPoll)
		fs := cl.PollFetches(pctx)
		pcancel()
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("reading the DLQ topic %s: %d of %d records: %w", d.topic, len(out), want, err)
		}
		n := len(out)
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < ends[r.Partition] {
				out = append(out, r)
			}
		})
		if len(out) == n {
			quiet += dlqPoll
		} else {
			quiet = 0
		}
	}
	return out, nil
}

// How long readDLQ polls at a time, and how long the DLQ topic must stay
// quiet before it stops short of its end offsets.
const (
	dlqPoll  = 500 * time.Millisecond
	dlqQuiet = 2 * time.Second
)

// errorHeader returns the first header naming an error: a non-empty
// header whose name contains "error", "exception" or "reason".
func errorHeader(r *kgo.Record) string {
	for _, h := range r.Headers {
		k := strings.ToLower(h.Key)
		if len(h.Value) > 0 && (strings.Contains(k, "error") || strings.Contains(k, "exception") || strings.Contains(k, "reason")) {
			return strings.ToValidUTF8(h.Key, "\uFFFD") + ": " + truncateText(h.Value, 200)
		}
	}
	return ""
}

// truncateText returns b as valid UTF-8, cut to at most n bytes on a rune
// boundary (with an ellipsis when cut).
func truncateText(b []byte, n int) string {
	v := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(v) <= n {
		return v
	}
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n] + "…"
}

// dlqID finds which event a DLQ record carries: a poison id that is a
// header's value, the id of its JSON value, or a poison id found whole in
// its value (a wrapped envelope, say); else its ce_id header.
func dlqID(r *kgo.Record, poison map[string]chaos.Fault) string {
	for _, h := range r.Headers {
		if _, ok := poison[string(h.Value)]; ok {
			return string(h.Value)
		}
	}
	var v struct {
		ID string `json:"id"`
	}
	jsonID := ""
	if json.Unmarshal(r.Value, &v) == nil {
		jsonID = v.ID
		if _, ok := poison[jsonID]; ok {
			return jsonID
		}
	}
	// Poison ids are evtool-poison-SEED-FAULT: "…-2" is a prefix of
	// "…-21", so a match must end where the id does. Map order is random:
	// take the longest whole match, which is unique.
	best := ""
	for id := range poison {
		if len(id) > len(best) && containsWhole(r.Value, id) {
			best = id
		}
	}
	if best != "" {
		return best
	}
	for _, h := range r.Headers {
		if strings.EqualFold(h.Key, "ce_id") {
			return string(h.Value)
		}
	}
	return jsonID
}

// containsWhole reports whether id occurs in b not followed by a byte that
// could continue it.
func containsWhole(b []byte, id string) bool {
	for rest := b; ; {
		i := bytes.Index(rest, []byte(id))
		if i < 0 {
			return false
		}
		end := i + len(id)
		if end == len(rest) || !isIDByte(rest[end]) {
			return true
		}
		rest = rest[i+1:]
	}
}

func isIDByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// dlqRecords describes the records of a run's DLQ topic: which event each
// carries and the header naming its error.
func dlqRecords(recs []*kgo.Record, poison map[string]chaos.Fault) []DLQRecord {
	out := make([]DLQRecord, 0, len(recs))
	for _, r := range recs {
		id := dlqID(r, poison)
		d := DLQRecord{Partition: r.Partition, Offset: r.Offset, ID: id, Error: errorHeader(r)}
		if f, ok := poison[id]; ok {
			d.Poison = f.Poison
		}
		out = append(out, d)
	}
	return out
}

// distinctDead returns the distinct events of DLQ records (a record
// dead-lettered twice, redelivered after a crash, counts once), and the
// first error headers, at most n.
func distinctDead(recs []DLQRecord, n int) (ids map[string]bool, errs []string) {
	ids = map[string]bool{}
	for _, d := range recs {
		if !ids[d.ID] && len(errs) < n {
			e := d.Error
			if e == "" {
				e = "no header naming the error"
			}
			errs = append(errs, fmt.Sprintf("%s (%s)", e, quoteID(d.ID)))
		}
		ids[d.ID] = true
	}
	return ids, errs
}

func quoteID(id string) string {
	if id == "" {
		return "event id not found"
	}
	return "event " + id
}

// checkDLQ evaluates expect.dlq for a run: the distinct events on the DLQ
// topic, each with a header naming the error; every poison event and
// nothing else (count: poison), or as many as count.
func (h *Harness) checkDLQ(res *RunResult, recs []*kgo.Record, poison map[string]chaos.Fault) ExpectResult {
	spec := h.sc.DLQ
	er := ExpectResult{Run: res.Name, Kind: "dlq", Line: spec.Line}
	seen := map[string]bool{}
	var noHeader, unknown []string
	valid := 0
	res.DLQ = dlqRecords(recs, poison)
	for _, d := range res.DLQ {
		id := d.ID
		if d.Error == "" {
			noHeader = append(noHeader, fmt.Sprintf("%d@%d", d.Partition, d.Offset))
		}
		if seen[id] && id != "" {
			continue // redelivered and dead-lettered again
		}
		seen[id] = true
		// The clean events the baseline dead-lettered (expect.baseline.dlq
		// says how many) are dead-lettered in every run.
		if _, ok := poison[id]; !ok && !h.baselineDead[id] {
			valid++
			if len(unknown) < 5 {
				unknown = append(unknown, fmt.Sprintf("%q", id))
			}
		}
	}
	var problems []string
	if spec.Count == CountPoison {
		er.What = fmt.Sprintf("DLQ %s holds the %d poison event(s) of the run, each with a header naming the error", res.DLQTopic, len(poison))
		var missing []string
		for id, f := range poison {
			if !seen[id] {
				missing = append(missing, fmt.Sprintf("%s (%s, from event %d)", id, f.Poison, f.Event.Index))
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			shown := missing
			if len(shown) > 5 {
				shown = append(shown[:5:5], "…")
			}
			problems = append(problems, fmt.Sprintf("%d of %d poison event(s) missing: %s", len(missing), len(poison), strings.Join(shown, ", ")))
		}
		if valid > 0 {
			problems = append(problems, fmt.Sprintf("%d other event(s) dead-lettered: %s", valid, strings.Join(unknown, ", ")))
		}
	} else {
		er.What = fmt.Sprintf("DLQ %s holds %d distinct event(s), each with a header naming the error", res.DLQTopic, spec.Count)
		if n := len(seen); n != spec.Count {
			problems = append(problems, fmt.Sprintf("%d distinct event(s)", n))
		}
	}
	if len(noHeader) > 0 {
		problems = append(problems, fmt.Sprintf("%d record(s) without a header naming the error (partition@offset %s)", len(noHeader), strings.Join(limit(noHeader, 5), ", ")))
	}
	er.OK = len(problems) == 0
	if !er.OK {
		er.Got = strings.Join(problems, "; ")
	}
	return er
}
