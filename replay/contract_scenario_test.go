package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
)

func TestScenarioContractKey(t *testing.T) {
	base := "events: {file: e.jsonl}\nconsumer:\n  run: [c]\n  state: {http: \"http://x/state\"}\n"
	for _, tt := range []struct{ name, text, want string }{
		{"not a string", base + "  contract: 42\n", "s.yaml:5: consumer.contract"},
		{"empty", base + "  contract: \"\"\n", "s.yaml:5: consumer.contract"},
		{"not yaml", base + "  contract: consumers/billing.json\n", "s.yaml:5: consumer.contract"},
		{"a list", base + "  contract: [a.yaml]\n", "s.yaml:5: consumer.contract"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte(tt.text))
			var se *ScenarioError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a ScenarioError containing %q", err, tt.want)
			}
		})
	}
	sc, err := ParseScenario(filepath.Join("dir", "s.yaml"), []byte(base+"  contract: consumers/billing.yaml\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("dir", "consumers", "billing.yaml"); sc.Consumer.Contract != want || sc.Consumer.ContractLine != 5 {
		t.Fatalf("contract %q line %d, want %q line 5", sc.Consumer.Contract, sc.Consumer.ContractLine, want)
	}
}

// A contract that cannot be read or parsed stops the replay before any
// run, naming the scenario's line or the contract's.
func TestContractLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file, contract, want string
		dir                        bool
	}{
		{name: "missing", file: "nobody.yaml", want: "scenario.yaml:9: consumer.contract: cannot read the contract"},
		{name: "directory", file: "d.yaml", dir: true, want: "scenario.yaml:9: consumer.contract: the contract"},
		{name: "unknown key", file: "qa.yaml", contract: "owner: x\nreads:\n  t: {versions: [1], field: [/a]}\n", want: "qa.yaml:3"},
		{name: "bad pointer", file: "qa.yaml", contract: "reads:\n  t:\n    versions: [1]\n    fields: [a]\n", want: "qa.yaml:4"},
		{name: "malformed", file: "qa.yaml", contract: "reads: [\n", want: "qa.yaml:1"},
		{name: "bad name", file: "q a.yaml", contract: "reads: {t: {versions: [1]}}\n", want: "is not a contract name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := bugScenarioText(t, "correct", 5, "", "")
			sc := writeScenario(t, text+"")
			path := filepath.Join(sc.Dir, tt.file)
			switch {
			case tt.dir:
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case tt.contract != "":
				if err := os.WriteFile(path, []byte(tt.contract), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sc.Consumer.Contract, sc.Consumer.ContractLine = path, 9
			rep, err := Replay(context.Background(), sc, Options{})
			if err == nil || rep != nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (report %v), want %q", err, rep != nil, tt.want)
			}
			var se *ScenarioError
			var le *catalog.LoadError
			if !errors.As(err, &se) && !errors.As(err, &le) {
				t.Fatalf("err %T is neither a scenario nor a contract error", err)
			}
		})
	}
	// --contract-field without a contract.
	sc := writeScenario(t, bugScenarioText(t, "correct", 5, "", ""))
	if _, err := Replay(context.Background(), sc, Options{ContractFields: []Field{{"t", "/a"}}}); err == nil || !strings.Contains(err.Error(), "needs a scenario with consumer.contract") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseContractField(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Field
		ok   bool
	}{
		{"com.example.order.placed:/customer/email", Field{"com.example.order.placed", "/customer/email"}, true},
		{"a:b:/x", Field{"a:b", "/x"}, true},
		{"t:/a:/b", Field{"t", "/a:/b"}, true},
		{"t:a", Field{}, false},
		{":/a", Field{}, false},
		{"/a", Field{}, false},
	} {
		got, err := ParseContractField(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseContractField(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestExampleContractScenarioLoads(t *testing.T) {
	for _, p := range []string{
		filepath.Join(examplesDir, "replay.yaml"),
		filepath.Join(examplesDir, "..", "payments", "replay.yaml"),
		filepath.Join(examplesDir, "..", "inventory", "replay.yaml"),
	} {
		sc, err := LoadScenario(p)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Consumer.Contract == "" {
			t.Fatalf("%s: no consumer.contract", p)
		}
		if _, err := os.Stat(sc.Consumer.Contract); err != nil {
			t.Fatal(err)
		}
	}
}
