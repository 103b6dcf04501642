package verify

import (
	"fmt"
	"sort"

	"github.com/evtool/evtool/records"
	"github.com/evtool/evtool/report"
)

// The verdict classes, in report order.
const (
	ClassLost           = "lost"
	ClassPhantom        = "phantom"
	ClassDuplicateNewID = "duplicate-new-id"
	ClassOutOfOrder     = "out-of-order"
	ClassWrongKey       = "wrong-key"
	ClassInvalid        = "invalid"
)

// Classes lists the verdict classes in report order.
var Classes = []string{ClassLost, ClassPhantom, ClassDuplicateNewID, ClassOutOfOrder, ClassWrongKey, ClassInvalid}

// RecordRef is a record in a verdict.
type RecordRef struct {
	At   report.RecordLocation `json:"at"`
	ID   string                `json:"id,omitempty"`
	Type string                `json:"type,omitempty"`
	Key  string                `json:"key"`
	Seq  *float64              `json:"seq,omitempty"`
}

func refOf(r *records.Record) RecordRef {
	ref := RecordRef{At: r.At, ID: r.ID, Type: r.Type, Key: r.Key}
	if r.HasSeq {
		s := r.Seq
		ref.Seq = &s
	}
	return ref
}

// Member is one thing wrong: the fact and records involved, and why.
type Member struct {
	Fact    *Fact       `json:"fact,omitempty"`
	Records []RecordRef `json:"records,omitempty"`
	Message string      `json:"message"`
}

// Class is one verdict class and its members.
type Class struct {
	Name    string   `json:"name"`
	Count   int      `json:"count"`
	Members []Member `json:"members,omitempty"`
}

// Verdict is what Judge found.
type Verdict struct {
	Classes []Class `json:"classes"`
	// Duplicates counts records repeating an earlier record's id: allowed.
	Duplicates int `json:"duplicates"`
	Facts      int `json:"facts"`
	Records    int `json:"records"`
}

// Failed reports whether any class has a member.
func (v *Verdict) Failed() bool {
	for _, c := range v.Classes {
		if c.Count > 0 {
			return true
		}
	}
	return false
}

// Count returns the size of a class.
func (v *Verdict) Count(class string) int {
	for _, c := range v.Classes {
		if c.Name == class {
			return c.Count
		}
	}
	return 0
}

type tks struct {
	typ, key string
	seq      float64
	hasSeq   bool
}

// Judge compares the records that reached the topic (as the records
// checker saw them, in partition order) with the facts the producer
// committed. A fact is matched by its event id; failing that, by (type,
// key, seq), or (type, key) for a fact without seq, one record id per
// fact: an event found only that way was published under another id
// (duplicate-new-id), a fact with neither is lost. A record matching no
// fact is a phantom. Records repeating an event are counted, not judged;
// an id reused for another event is invalid.
func Judge(facts []Fact, recs []*records.Record) Verdict {
	v := Verdict{Facts: len(facts), Records: len(recs)}
	classes := map[string]*Class{}
	for _, name := range Classes {
		classes[name] = &Class{Name: name}
	}
	add := func(class string, m Member) {
		c := classes[class]
		c.Count++
		c.Members = append(c.Members, m)
	}
	factIDs := map[string]bool{}
	factTKS := map[tks]*Fact{}
	for i := range facts {
		f := &facts[i]
		factIDs[f.ID] = true
		if k := factKey(f); factTKS[k] == nil {
			factTKS[k] = f
		}
	}
	// Only a record under an id that is no fact's can stand for a fact
	// missing under its own id, and each such id for one fact only: a
	// record matched by its id, or already standing for another fact of
	// the same (type, key, seq), would hide a lost event.
	byID := map[string]bool{}
	spare := map[tks][]*records.Record{}
	for _, r := range recs {
		if r.Repeat && !r.Reused() {
			v.Duplicates++
		}
		if r.ID == "" || byID[r.ID] {
			continue
		}
		byID[r.ID] = true
		if r.Type != "" && !factIDs[r.ID] {
			// A fact without seq (seq is optional) matches on (type,
			// key) whatever sequence the record carries.
			for _, k := range recordKeys(r) {
				spare[k] = append(spare[k], r)
			}
		}
	}
	standsFor := map[*records.Record]*Fact{}
	for i := range facts {
		f := &facts[i]
		if byID[f.ID] {
			continue
		}
		k := factKey(f)
		for len(spare[k]) > 0 && standsFor[spare[k][0]] != nil {
			spare[k] = spare[k][1:]
		}
		if len(spare[k]) == 0 {
			add(ClassLost, Member{Fact: f, Message: fmt.Sprintf("committed %s %s (key %q%s) has no event on the topic", f.Type, f.ID, f.Key, seqText(f.Seq))})
			continue
		}
		standsFor[spare[k][0]] = f
		spare[k] = spare[k][1:]
	}
	// Records of one id count once: the first copy stands for them all.
	seen := map[string]bool{}
	for _, r := range recs {
		if r.ID != "" {
			if seen[r.ID] && !r.Reused() {
				continue
			}
			seen[r.ID] = true
		}
		ref := refOf(r)
		switch {
		case r.Type == "":
			// Not a CloudEvent: only invalid, below.
		case factIDs[r.ID]:
		default:
			f := standsFor[r]
			for _, k := range recordKeys(r) {
				if f == nil {
					f = factTKS[k]
				}
			}
			if f != nil {
				add(ClassDuplicateNewID, Member{Fact: f, Records: []RecordRef{ref}, Message: fmt.Sprintf("the event of fact %s (%s, key %q%s) was published as %s, under another id", f.ID, f.Type, f.Key, seqText(f.Seq), r.ID)})
			} else {
				add(ClassPhantom, Member{Records: []RecordRef{ref}, Message: fmt.Sprintf("event %s (%s, key %q) matches no committed fact", r.ID, r.Type, r.Key)})
			}
		}
		if r.Backwards() {
			add(ClassOutOfOrder, Member{Records: []RecordRef{ref}, Message: findingText(r, records.RuleSequenceBackwards)})
		}
		if r.WrongKey() {
			add(ClassWrongKey, Member{Records: []RecordRef{ref}, Message: findingText(r, records.RulePartitionKey)})
		}
		if r.Invalid() {
			add(ClassInvalid, Member{Records: []RecordRef{ref}, Message: firstFailing(r)})
		}
	}
	for _, name := range Classes {
		c := classes[name]
		sort.SliceStable(c.Members, func(i, j int) bool { return memberKey(c.Members[i]) < memberKey(c.Members[j]) })
		v.Classes = append(v.Classes, *c)
	}
	return v
}

// recordKeys are the keys a record matches facts by: (type, key, seq),
// and (type, key) for a fact without seq.
func recordKeys(r *records.Record) []tks {
	if !r.HasSeq {
		return []tks{{typ: r.Type, key: r.Key}}
	}
	return []tks{{r.Type, r.Key, r.Seq, true}, {typ: r.Type, key: r.Key}}
}

func factKey(f *Fact) tks {
	k := tks{typ: f.Type, key: f.Key}
	if f.Seq != nil {
		k.seq, k.hasSeq = *f.Seq, true
	}
	return k
}

func memberKey(m Member) string {
	if len(m.Records) > 0 {
		a := m.Records[0].At
		return fmt.Sprintf("r%s/%08d/%016d", a.Topic, a.Partition, a.Offset)
	}
	if m.Fact != nil {
		return "f" + m.Fact.ID
	}
	return ""
}

func seqText(s *float64) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf(", seq %v", *s)
}

func findingText(r *records.Record, rule string) string {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return f.Message
		}
	}
	return rule
}

func firstFailing(r *records.Record) string {
	for _, f := range r.Findings {
		if f.Failing() && f.Rule != records.RuleSequenceBackwards && f.Rule != records.RulePartitionKey {
			msg := "[" + f.Rule + "] " + f.Message
			if f.Pointer != "" {
				msg = "[" + f.Rule + "] at " + f.Pointer + ": " + f.Message
			}
			return msg
		}
	}
	return "invalid"
}
