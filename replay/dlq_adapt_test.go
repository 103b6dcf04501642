package replay

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
)

// The DLQ tests build records and chaos faults; these adapters give them
// to the checks as a run does, as dead letters and a poison set.

func testPoisonSet(poison map[string]chaos.Fault) poisonIDs {
	ps := poisonIDs{}
	for id, f := range poison {
		f.PoisonID = id
		ps.add(f)
	}
	return ps
}

func testDeadLetters(recs []*kgo.Record, poison poisonIDs) []deadLetter {
	rest := slices.Clone(recs)
	d, _ := collectDeadLetters(func() (*kgo.Record, error) {
		if len(rest) == 0 {
			return nil, kafka.ErrEnd
		}
		r := rest[0]
		rest = rest[1:]
		return r, nil
	}, poison)
	return d
}

func (h *Harness) checkDLQ(ctx context.Context, res *RunResult, recs []*kgo.Record, poison map[string]chaos.Fault) ExpectResult {
	ps := testPoisonSet(poison)
	return h.checkDeadLetters(ctx, res, testDeadLetters(recs, ps), ps)
}

func (h *Harness) checkOrigins(ctx context.Context, res *RunResult, recs []*kgo.Record, poison map[string]chaos.Fault) ([]string, error) {
	ps := testPoisonSet(poison)
	return h.checkLetterOrigins(ctx, res, testDeadLetters(recs, ps), ps)
}

func (h *Harness) readDLQ(ctx context.Context, d *dlqRun) ([]deadLetter, error) {
	return h.readDeadLetters(ctx, d, nil)
}
