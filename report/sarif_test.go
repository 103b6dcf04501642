package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestSARIFValidatesAgainstSchema: the SARIF output is valid under the
// SARIF 2.1.0 schema, and has what GitHub's code scanning asks for: a tool
// version (SARIF2005) and, for every rule, a full description, help text
// and a help URI into docs/rules.md (GH2012).
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join("testdata", "sarif", "sarif-2.1.0-rtm.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := gateReport()
	r.ToolVersion = "v1.2.3"
	r.Rules = []RuleDoc{{ID: r.Findings[0].Rule, Summary: "caller's summary", Detail: "caller's detail"}}
	r.Findings = append(r.Findings, Finding{Rule: "schema-compile", Severity: SeverityError, Message: "x", File: "a b#c.json", Line: 3},
		Finding{Rule: "no-such-rule", Severity: SeverityInfo, Message: "y"})
	var buf bytes.Buffer
	if err := Write(&buf, FormatSARIF, r); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("SARIF output is not valid SARIF 2.1.0: %v\n%s", err, buf.String())
	}
	run := doc.(map[string]any)["runs"].([]any)[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["version"] != "v1.2.3" {
		t.Errorf("driver version %v", driver["version"])
	}
	rules := driver["rules"].([]any)
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	for _, x := range rules {
		rule := x.(map[string]any)
		id := rule["id"].(string)
		full, _ := rule["fullDescription"].(map[string]any)
		help, _ := rule["help"].(map[string]any)
		if full == nil || full["text"] == "" || help == nil || help["text"] == "" {
			t.Errorf("rule %s lacks fullDescription or help: %v", id, rule)
		}
		if rule["helpUri"] != RulesDocURL+"#"+id {
			t.Errorf("rule %s helpUri %v", id, rule["helpUri"])
		}
		if id == r.Findings[0].Rule && rule["shortDescription"].(map[string]any)["text"] != "caller's summary" {
			t.Errorf("rule %s does not use the caller's documentation: %v", id, rule)
		}
	}
}
