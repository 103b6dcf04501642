package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/internal/bugs"
)

// contractScenario writes bugs.Contract as consumers/qa.yaml beside a
// scenario running a bug consumer on n events with a contract run.
func contractScenario(t *testing.T, bug bugs.Bug, n int, contract string) *Scenario {
	t.Helper()
	sc := writeScenario(t, bugScenarioText(t, bug, n, "", "chaos: {seed: 1, duplicate: {rate: 0.02}}\n"))
	dir := filepath.Join(sc.Dir, "consumers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qa.yaml"), []byte(contract), 0o644); err != nil {
		t.Fatal(err)
	}
	sc.Consumer.Contract = filepath.Join(dir, "qa.yaml")
	return sc
}

// (q) reads /customerId of placed events, which the contract omits: the
// contract run fails and narrows the mutated fields down to that one;
// the correct consumer passes the same contract.
func TestContractRunCatchesUndeclaredRead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		bug  bugs.Bug
		want Verdict
	}{
		{bugs.UndeclaredRead, Fail},
		{bugs.Correct, Pass},
	} {
		t.Run(string(tt.bug), func(t *testing.T) {
			t.Parallel()
			ctx, opts := watchProgress(t, Options{ShrinkBudget: 20, Baselines: 1})
			sc := contractScenario(t, tt.bug, 120, bugs.Contract)
			rep, err := Replay(ctx, sc, opts)
			if err != nil {
				t.Fatal(err)
			}
			text := reportText(rep)
			cr := rep.Contract
			if cr == nil || rep.Verdict != tt.want || cr.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s:\n%s", rep.Verdict, tt.want, text)
			}
			if cr.Mutations == 0 || len(cr.Fields) < 5 {
				t.Fatalf("%d fields, %d mutations:\n%s", len(cr.Fields), cr.Mutations, text)
			}
			if tt.want == Pass {
				return
			}
			want := Field{"com.example.order.placed", "/customerId"}
			if len(cr.Findings) != 1 || !slices.Equal(cr.Findings[0].Fields, []Field{want}) || !cr.Findings[0].Minimal {
				t.Fatalf("findings %+v, want one naming %s:\n%s", cr.Findings, want, text)
			}
			for _, s := range []string{
				"qa reads /customerId (com.example.order.placed), which its contract does not list [consumer-reads-undeclared]",
				"state diff of the run mutating them",
				"/orders/",
				"--contract-field com.example.order.placed:/customerId",
			} {
				if !strings.Contains(text, s) {
					t.Errorf("report lacks %q:\n%s", s, text)
				}
			}
			var js bytes.Buffer
			if err := WriteJSON(&js, rep); err != nil || !strings.Contains(js.String(), `"rule": "consumer-reads-undeclared"`) {
				t.Errorf("JSON report lacks the finding (%v):\n%s", err, js.String())
			}
			var ju bytes.Buffer
			if err := WriteJUnit(&ju, rep); err != nil || !strings.Contains(ju.String(), `type="consumer-reads-undeclared"`) || !strings.Contains(ju.String(), "/customerId") {
				t.Errorf("JUnit report lacks the finding (%v):\n%s", err, ju.String())
			}
			// The reproduce line's field alone fails again, without chaos.
			again, err := Replay(ctx, sc, Options{Baselines: 1, ContractFields: cr.Findings[0].Fields})
			if err != nil || again.Verdict != Fail || again.Run("chaos") != nil || again.Contract == nil || len(again.Contract.Fields) != 1 {
				t.Fatalf("reproduce: %v, verdict %s:\n%s", err, again.Verdict, reportText(again))
			}
		})
	}
}

// infer finds what the correct consumer reads, within the run bound, and
// its contract passes a contract run.
func TestInferCorrectConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about 20 replays of the consumer through kfake (12 CPU-s); TestContractRunCatchesUndeclaredRead stands for contract runs in the short tier, and consumers_contract_cli for consumers infer on the command line")
	}
	t.Parallel()
	ctx, opts := watchProgress(t, Options{Baselines: 1})
	sc := writeScenario(t, bugScenarioText(t, bugs.Correct, 60, "", ""))
	inf, err := Infer(ctx, sc, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// What package bugs reads (Decode): the order, its version, the paid
	// amount, the parcels.
	want := []Field{
		{"com.example.order.paid", "/amount/amountMinor"}, {"com.example.order.paid", "/orderId"}, {"com.example.order.paid", "/orderVersion"},
		{"com.example.order.placed", "/orderId"}, {"com.example.order.placed", "/orderVersion"},
		{"com.example.order.shipped", "/orderId"}, {"com.example.order.shipped", "/orderVersion"}, {"com.example.order.shipped", "/parcels"},
	}
	if !slices.Equal(inf.Read, want) || inf.Unresolved != nil {
		t.Fatalf("read %v (unresolved %v), want %v", inf.Read, inf.Unresolved, want)
	}
	k, n := len(inf.Read), len(inf.Fields)
	if bound := k*(ceilLog2(n)+1) + 2; inf.Runs > bound {
		t.Errorf("%d runs for k=%d of n=%d, bound %d", inf.Runs, k, n, bound)
	}
	t.Logf("%d of %d fields in %d runs", k, n, inf.Runs)

	// Its contract, as a file, passes the contract run.
	reads := map[string]any{}
	for _, f := range inf.Read {
		r, _ := reads[f.Type].(map[string]any)
		if r == nil {
			r = map[string]any{"versions": inf.Versions[f.Type], "fields": []string{}}
			reads[f.Type] = r
		}
		r["fields"] = append(r["fields"].([]string), f.Pointer)
	}
	b, _ := json.Marshal(map[string]any{"reads": reads}) // JSON is YAML
	if _, err := consumers.Parse("inferred.yaml", b); err != nil {
		t.Fatal(err)
	}
	sc2 := contractScenario(t, bugs.Correct, 60, string(b))
	rep, err := Replay(ctx, sc2, Options{Baselines: 1, ShrinkBudget: -1})
	if err != nil || rep.Contract == nil || rep.Contract.Verdict != Pass {
		t.Fatalf("the inferred contract fails its contract run (%v):\n%s", err, reportText(rep))
	}
}

func ceilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
