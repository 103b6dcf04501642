package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
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
	"github.com/evtool/evtool/dlq"
	"github.com/evtool/evtool/kafka"
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

// checkLetterOrigins returns the problems of DLQ records whose origin headers
// (of any convention dlq.Decode reads) do not name the record they were
// delivered from: a topic that does not exist, a partition or an offset it
// does not have, or a record that carries another event. The origin is
// mostly the run's topic; a consumer with retry topics of its own (Spring's
// non-blocking retries) names the retry topic it last read the record
// from, which is checked the same way.
func (h *Harness) checkLetterOrigins(ctx context.Context, res *RunResult, dead []deadLetter, poison poisonIDs) ([]string, error) {
	var problems []string
	byTopic := map[string][]namedOrigin{}
	for i := range dead {
		d := &dead[i]
		switch {
		case d.originErr != "":
			problems = append(problems, d.originErr)
		case d.origin == nil:
		default:
			byTopic[d.origin.Topic] = append(byTopic[d.origin.Topic], namedOrigin{d, *d.origin})
		}
	}
	topics := make([]string, 0, len(byTopic))
	for t := range byTopic {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, topic := range topics {
		want := byTopic[topic]
		ends, err := h.endOffsets(ctx, topic)
		if err != nil && topic != res.Topic {
			for _, n := range want {
				problems = append(problems, fmt.Sprintf("%d@%d names %s as its origin, but the run's records were delivered from topic %s (and %s does not exist)", n.dead.Partition, n.dead.Offset, n.origin, res.Topic, topic))
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		more, err := h.checkTopicOrigins(ctx, topic, ends, want, poison)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	return problems, nil
}

// namedOrigin is a DLQ record and the origin its headers name.
type namedOrigin struct {
	dead   *deadLetter
	origin dlq.Origin
}

// checkTopicOrigins checks the origins named in one topic, whose end
// offsets are ends.
func (h *Harness) checkTopicOrigins(ctx context.Context, topic string, ends map[int32]int64, want []namedOrigin, poison poisonIDs) ([]string, error) {
	var problems []string
	// Read each partition from the first offset named in it.
	from := map[int32]int64{}
	for p, end := range ends {
		from[p] = end
	}
	wanted := map[int32]map[int64]bool{}
	for _, n := range want {
		end, ok := ends[n.origin.Partition]
		if !ok || n.origin.Offset >= end {
			problems = append(problems, fmt.Sprintf("%d@%d names %s as its origin, which the run never wrote (%d partition(s); end offset %d)", n.dead.Partition, n.dead.Offset, n.origin, len(ends), end))
			continue
		}
		from[n.origin.Partition] = min(from[n.origin.Partition], n.origin.Offset)
		if wanted[n.origin.Partition] == nil {
			wanted[n.origin.Partition] = map[int64]bool{}
		}
		wanted[n.origin.Partition][n.origin.Offset] = true
	}
	if len(wanted) == 0 {
		return problems, nil
	}
	cc := h.opts.Client
	cc.Brokers = h.brokers
	rd, err := kafka.OpenTopics(ctx, cc, kafka.ReadOptions{Topics: []string{topic}, Offsets: map[string]map[int32]int64{topic: from}})
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	// Of each record named, its digest and id: a record's value is a part
	// of its fetched batch, and keeping the records kept the batches —
	// most of the topic when the named records are spread over it.
	type origin struct {
		sum [sha256.Size]byte
		id  string
	}
	delivered := map[int32]map[int64]origin{}
	for {
		rec, err := rd.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the records the DLQ names in %s: %w", topic, err)
		}
		if wanted[rec.Partition][rec.Offset] {
			if delivered[rec.Partition] == nil {
				delivered[rec.Partition] = map[int64]origin{}
			}
			delivered[rec.Partition][rec.Offset] = origin{recordSum(rec), strings.Clone(dlqID(rec, poison))}
		}
	}
	for _, n := range want {
		if !wanted[n.origin.Partition][n.origin.Offset] {
			continue // reported above
		}
		in, ok := delivered[n.origin.Partition][n.origin.Offset]
		if !ok {
			problems = append(problems, fmt.Sprintf("%d@%d names %s as its origin, which holds no record (a transaction marker?)", n.dead.Partition, n.dead.Offset, n.origin))
			continue
		}
		if in.sum == n.dead.sum {
			continue
		}
		if got, id := n.dead.ID, in.id; id != "" && got == id {
			continue
		}
		problems = append(problems, fmt.Sprintf("%d@%d names %s as its origin, which holds %s, not %s", n.dead.Partition, n.dead.Offset, n.origin, quoteID(in.id), quoteID(n.dead.ID)))
	}
	return problems, nil
}

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
// its value (a wrapped envelope, say); else its ce_id header. poison is
// keyed by poison id (its values are not read).
func dlqID[V any](r *kgo.Record, poison map[string]V) string {
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
	if best := poisonInValue(r.Value, poison); best != "" {
		return best
	}
	for _, h := range r.Headers {
		if strings.EqualFold(h.Key, "ce_id") {
			return string(h.Value)
		}
	}
	return jsonID
}

// poisonInValue returns the poison id found whole in b: poison ids are
// chaos.PoisonIDPrefix + SEED-FAULT ("…-2" is a prefix of "…-21"), so a
// match runs from the prefix to the end of the id's bytes. Of several,
// the longest, then the least. It reads b once, not once per poison id
// (which grew as poison × dead letters).
func poisonInValue[V any](b []byte, poison map[string]V) string {
	if len(poison) == 0 {
		return ""
	}
	best := ""
	prefix := []byte(chaos.PoisonIDPrefix)
	// runEnd is where the run of id bytes holding the last prefix found
	// ends: a prefix found before it ends there too (a value of repeated
	// prefixes is read once, not once per prefix).
	runEnd := 0
	for from := 0; ; {
		i := bytes.Index(b[from:], prefix)
		if i < 0 {
			return best
		}
		start := from + i
		if runEnd <= start {
			runEnd = start + len(prefix)
			for runEnd < len(b) && isIDByte(b[runEnd]) {
				runEnd++
			}
		}
		// A run longer than any poison id holds none at this start (an
		// id must not be followed by a byte that could continue it):
		// not hashing it keeps a value of repeated prefixes linear.
		if id := b[start:runEnd]; len(id) >= len(best) && len(id) <= chaos.MaxPoisonIDLen {
			if _, ok := poison[string(id)]; ok && (len(id) > len(best) || string(id) < best) {
				best = string(id)
			}
		}
		from = start + 1
	}
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

// checkDeadLetters evaluates expect.dlq for a run: the distinct events on the DLQ
// topic, each with a header naming the error; every poison event and
// nothing else (count: poison), or as many as count.
//
// Records whose headers name their origin must name the record they were
// delivered from (checkLetterOrigins).
func (h *Harness) checkDeadLetters(ctx context.Context, res *RunResult, dead []deadLetter, poison poisonIDs) ExpectResult {
	spec := h.sc.DLQ
	er := ExpectResult{Run: res.Name, Kind: "dlq", Line: spec.Line}
	seen := map[string]bool{}
	var noHeader, unknown []string
	valid := 0
	res.DLQ = dlqRecords(dead)
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
				missing = append(missing, fmt.Sprintf("%s (%s, from event %d)", id, f.Kind, f.Event))
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
	origins, err := h.checkLetterOrigins(ctx, res, dead, poison)
	if err != nil {
		origins = append(origins, "cannot check the origin headers: "+err.Error())
	}
	if len(origins) > 0 {
		problems = append(problems, fmt.Sprintf("%d record(s) with origin headers that do not name where they were delivered from: %s", len(origins), strings.Join(limit(origins, 3), "; ")))
	}
	er.OK = len(problems) == 0
	if !er.OK {
		er.Got = strings.Join(problems, "; ")
	}
	return er
}
