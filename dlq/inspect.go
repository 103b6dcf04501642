package dlq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// GroupBy is what inspect's summary groups records by.
type GroupBy string

// The keys of GroupBy.
const (
	ByError  GroupBy = "error"
	ByType   GroupBy = "type"
	ByOrigin GroupBy = "origin"
)

// ParseGroupBy reads a --group-by value.
func ParseGroupBy(s string) (GroupBy, error) {
	switch g := GroupBy(s); g {
	case ByError, ByType, ByOrigin:
		return g, nil
	}
	return "", fmt.Errorf("--group-by %q: use error, type or origin", s)
}

// Inspection is what inspect found on a dead-letter topic.
type Inspection struct {
	Topic   string  `json:"topic"`
	Records []Entry `json:"records"`
	Summary Summary `json:"summary"`
}

// Summary counts the records by error and by type (or by what GroupBy
// says), with the oldest record and its age.
type Summary struct {
	Records int `json:"records"`
	// Malformed counts records whose dead-letter headers cannot be read.
	Malformed int        `json:"malformed"`
	Oldest    *time.Time `json:"oldest"`
	// OldestAge is the oldest record's age when inspected, in seconds.
	OldestAge *float64 `json:"oldestAgeSeconds"`
	Groups    []Group  `json:"groups"`
}

// Group is the records of one key of a GroupBy.
type Group struct {
	By     GroupBy   `json:"by"`
	Key    string    `json:"key"`
	Count  int       `json:"count"`
	Oldest time.Time `json:"oldest"`
}

// InspectOptions say what to inspect.
type InspectOptions struct {
	Client kafka.ClientConfig
	Topic  string
	// Catalog, when set, resolves dataschemas to versions.
	Catalog *catalog.Catalog
	// GroupBy lists the summary's groupings (default: error, then type).
	GroupBy []GroupBy
	// Now is the time ages are measured at (default time.Now).
	Now time.Time
}

// Inspect reads a dead-letter topic from its start to the end offsets it
// had when reading started.
func Inspect(ctx context.Context, o InspectOptions) (*Inspection, error) {
	r, err := kafka.OpenTopics(ctx, o.Client, kafka.ReadOptions{Topics: []string{o.Topic}})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ins := &Inspection{Topic: o.Topic, Records: []Entry{}}
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, kafka.ErrEnd) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted while reading %s: stopped at %s", o.Topic, r.Position())
			}
			return nil, err
		}
		ins.Records = append(ins.Records, NewEntry(rec, o.Catalog))
	}
	sort.SliceStable(ins.Records, func(i, j int) bool {
		a, b := ins.Records[i], ins.Records[j]
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	ins.Summary = summarize(ins.Records, o.GroupBy, now)
	return ins, nil
}

func summarize(es []Entry, by []GroupBy, now time.Time) Summary {
	if len(by) == 0 {
		by = []GroupBy{ByError, ByType}
	}
	s := Summary{Records: len(es), Groups: []Group{}}
	for _, g := range by {
		idx := map[string]int{}
		var groups []Group
		for _, e := range es {
			k := e.groupKey(g)
			i, ok := idx[k]
			if !ok {
				i = len(groups)
				idx[k] = i
				groups = append(groups, Group{By: g, Key: k, Oldest: e.Timestamp})
			}
			groups[i].Count++
			if e.Timestamp.Before(groups[i].Oldest) {
				groups[i].Oldest = e.Timestamp
			}
		}
		sort.SliceStable(groups, func(i, j int) bool {
			if groups[i].Count != groups[j].Count {
				return groups[i].Count > groups[j].Count
			}
			return groups[i].Key < groups[j].Key
		})
		s.Groups = append(s.Groups, groups...)
	}
	for _, e := range es {
		if e.Problem != "" {
			s.Malformed++
		}
		if s.Oldest == nil || e.Timestamp.Before(*s.Oldest) {
			t := e.Timestamp
			s.Oldest = &t
		}
	}
	if s.Oldest != nil {
		age := now.Sub(*s.Oldest).Round(time.Second).Seconds()
		s.OldestAge = &age
	}
	return s
}

// groupKey is the entry's key under g: the error class (or, without one,
// the message), the event type, or the original topic and partition.
func (e Entry) groupKey(g GroupBy) string {
	switch g {
	case ByType:
		if e.Type == nil {
			return "(no event)"
		}
		return *e.Type
	case ByOrigin:
		switch {
		case e.OriginalTopic == nil:
			return "(no origin)"
		case e.OriginalPartition == nil:
			return *e.OriginalTopic
		}
		return fmt.Sprintf("%s/%d", *e.OriginalTopic, *e.OriginalPartition)
	}
	switch {
	case e.Problem != "":
		return "(malformed headers)"
	case e.ErrorClass != "":
		return e.ErrorClass
	case e.Error != "":
		return shorten(e.Error, 120)
	}
	return "(no error)"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// writeJSON prints v as indented JSON, escaped as every report is.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(report.JSONSafe(b), '\n'))
	return err
}

// WriteInspection prints an inspection as text or JSON.
func WriteInspection(w io.Writer, f report.Format, ins *Inspection) error {
	if f == report.FormatJSON {
		return writeJSON(w, ins)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d dead letter(s)\n", ins.Topic, len(ins.Records))
	for _, e := range ins.Records {
		fmt.Fprintf(&b, "%d@%d  %s  %s  from %s  redriven %d time(s)\n", e.Partition, e.Offset, e.Timestamp.Format(time.RFC3339), e.Convention, report.Escape(e.originText()), e.RedriveCount)
		fmt.Fprintf(&b, "    event  %s\n", report.Escape(e.eventText()))
		fmt.Fprintf(&b, "    error  %s\n", report.Escape(e.errorText()))
		if e.Problem != "" {
			fmt.Fprintf(&b, "    malformed  %s\n", report.Escape(e.Problem))
		}
	}
	s := ins.Summary
	if s.Oldest != nil {
		fmt.Fprintf(&b, "summary: %d record(s), oldest %s (%s old)\n", s.Records, s.Oldest.Format(time.RFC3339), time.Duration(*s.OldestAge*float64(time.Second)))
	} else {
		fmt.Fprintf(&b, "summary: no records\n")
	}
	var last GroupBy
	for _, g := range s.Groups {
		if g.By != last {
			fmt.Fprintf(&b, "  by %s:\n", g.By)
			last = g.By
		}
		fmt.Fprintf(&b, "    %4d  %s  (oldest %s)\n", g.Count, report.Escape(g.Key), g.Oldest.Format(time.RFC3339))
	}
	if s.Malformed > 0 {
		fmt.Fprintf(&b, "%d record(s) with malformed dead-letter headers\n", s.Malformed)
	}
	_, err := io.WriteString(w, report.SafeLines(strings.TrimSuffix(b.String(), "\n"))+"\n")
	return err
}

func (e Entry) originText() string {
	switch {
	case e.OriginalTopic == nil:
		return "(origin unknown)"
	case e.OriginalPartition == nil || e.OriginalOffset == nil:
		return *e.OriginalTopic
	}
	return fmt.Sprintf("%s/%d@%d", *e.OriginalTopic, *e.OriginalPartition, *e.OriginalOffset)
}

func (e Entry) eventText() string {
	if e.ID == nil && e.Type == nil {
		return "(not a CloudEvent)"
	}
	var parts []string
	if e.Type != nil {
		parts = append(parts, *e.Type)
	}
	if e.Version != nil {
		parts = append(parts, fmt.Sprintf("v%d", *e.Version))
	}
	if e.ID != nil {
		parts = append(parts, "id "+*e.ID)
	}
	return strings.Join(parts, " ")
}

func (e Entry) errorText() string {
	if t := e.errorHeaders(); t != "" {
		return t
	}
	return "(no error header)"
}

// errorHeaders is the error as the headers say it, "class: message" ("" for
// none): what --error-match matches.
func (e Entry) errorHeaders() string {
	switch {
	case e.ErrorClass != "" && e.Error != "" && strings.HasPrefix(e.Error, e.ErrorClass+": "):
		return e.Error // the message names its class already
	case e.ErrorClass != "" && e.Error != "":
		return e.ErrorClass + ": " + e.Error
	case e.ErrorClass != "":
		return e.ErrorClass
	case e.Error != "":
		return e.Error
	}
	return ""
}
