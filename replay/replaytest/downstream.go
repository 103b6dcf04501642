package replaytest

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
	"github.com/evtool/evtool/replay"
)

// DownstreamURL returns the base URL of the stand-in name for the run
// being fed ("" when Options.Downstream has none of that name): Handle
// points its HTTP client at it, as a consumer under evtool replay reads
// EVTOOL_DOWNSTREAM_<NAME>. Each run (baseline, chaos) has stand-ins of
// its own; the chaos run's get the plan's downstream faults and outages,
// and the oracle judges their logs after the run, as evtool replay does.
func DownstreamURL(ctx context.Context, name string) string {
	if d, ok := ctx.Value(ctxKey{}).(*deliveryCtx); ok && d.down != nil {
		return d.down.urls[name]
	}
	return ""
}

// standIns are one run's stand-ins.
type standIns struct {
	specs  []replay.DownstreamSpec
	stands []*downstream.StandIn
	urls   map[string]string
	events *downstream.EventTable
}

// startStandIns starts the stand-ins of a run with the applied faults of
// its plan (none for a clean run) over n events; nil without stand-ins.
func startStandIns(specs []replay.DownstreamSpec, faults []chaos.Fault, ds []chaos.Delivery[event.Event], n int) (*standIns, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	stands, plans, err := replay.StartStandIns(specs)
	if err != nil {
		return nil, err
	}
	s := &standIns{specs: specs, stands: stands, urls: map[string]string{}, events: downstream.NewEventTable("")}
	for i, sp := range specs {
		s.urls[sp.Config.Name] = stands[i].URL()
	}
	for _, f := range faults {
		if p := plans[f.Downstream]; p != nil {
			p.Add(f, int64(n))
		}
	}
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Fault != nil && d.Fault.Kind != chaos.Reorder || seen[d.Event.ID] {
			continue
		}
		seen[d.Event.ID] = true
		s.events.Add(d.Event.ID, d.Event.Key, d.Event.Partition, d.Event.Index, d.Event.Line)
	}
	return s, nil
}

// judge closes the stand-ins and judges their logs.
func (s *standIns) judge(dead []string, expected map[string][]string) replay.DownstreamJudgement {
	logs := make([]downstream.Log, len(s.stands))
	for i, st := range s.stands {
		st.Close()
		logs[i] = st.TakeLog()
	}
	return replay.JudgeDownstreams(s.specs, logs, s.events, dead, true, expected)
}

func (s *standIns) close() {
	if s == nil {
		return
	}
	for _, st := range s.stands {
		st.Close()
	}
}

// writeDownstream adds the stand-ins' summaries and findings to a report.
func writeDownstream(b *strings.Builder, rs []replay.DownstreamResult) {
	for _, d := range rs {
		fmt.Fprintf(b, "%s\n", d.Summary)
		for _, f := range d.Findings {
			fmt.Fprintf(b, "  %s\n", f)
			for _, st := range f.Timeline {
				fmt.Fprintf(b, "    %s\n", st)
			}
		}
	}
}
