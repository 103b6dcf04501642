package replay

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
)

const downstreamScenario = `events: {file: e.jsonl}
consumer:
  run: [./consumer]
  state: {http: "http://${EVTOOL_ADDR}/state"}
downstream:
  email:
    effect: {key: /receiptId}
    idempotency: {header: Idempotency-Key}
    answer: {status: 202, headers: {X-Provider: stand-in}, body: {queued: true}}
    terminal: {when: {pointer: /to, matches: "invalid"}, status: 422}
    limits: {rate: 100, concurrency: 50}
  pay.v2-eu:
    effect: {header: X-Charge}
    upstream: http://127.0.0.1:8025/api
chaos:
  downstream:
    email: {rate: 0.2, kinds: [429, 500, 503, timeout, reset, slow], outage: {count: 1, duration: 3s}}
    pay.v2-eu: {rate: 0.1}
expect:
  effects: {email: exactly-once, pay.v2-eu: at-least-once}
  retries: {email: {max_attempts: 5}}
  effects_order: per-key
`

func TestParseScenarioDownstream(t *testing.T) {
	sc, err := ParseScenario("s.yaml", []byte(downstreamScenario))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Downstream) != 2 {
		t.Fatalf("downstream %+v", sc.Downstream)
	}
	email, pay := sc.Downstream[0], sc.Downstream[1]
	c := email.Config
	if c.Name != "email" || c.Effect.Pointer != "/receiptId" || c.Idempotency == nil || c.Idempotency.Header != "Idempotency-Key" ||
		c.Answer.Status != 202 || string(c.Answer.Body) != `{"queued":true}` || c.Answer.Headers["X-Provider"] != "stand-in" ||
		c.Terminal == nil || c.Terminal.Pointer != "/to" || !c.Terminal.When.MatchString("an invalid one") || c.Terminal.Status != 422 ||
		c.Limits != (downstream.Limits{Rate: 100, Concurrency: 50}) || email.Env != "EVTOOL_DOWNSTREAM_EMAIL" {
		t.Errorf("email %+v", email)
	}
	if email.Expect != (downstream.Expect{Effects: downstream.ExactlyOnce, MaxAttempts: 5, OrderPerKey: true}) {
		t.Errorf("email expect %+v", email.Expect)
	}
	if pay.Env != "EVTOOL_DOWNSTREAM_PAY_V2_EU" || pay.Config.Effect.Header != "X-Charge" || pay.Config.Upstream == nil || pay.Config.Upstream.Host != "127.0.0.1:8025" || pay.Expect.Effects != downstream.AtLeastOnce {
		t.Errorf("pay %+v", pay)
	}
	d := sc.Chaos.Downstream["email"]
	if d == nil || d.Rate != 0.2 || len(d.Kinds) != 6 || d.Kinds[0] != chaos.Status429 || d.Outage == nil || d.Outage.Count != 1 || d.Outage.Duration != 3*time.Second {
		t.Errorf("chaos.downstream.email %+v", d)
	}
	if p := sc.Chaos.Downstream["pay.v2-eu"]; p == nil || len(p.Kinds) != len(chaos.DownstreamKinds) {
		t.Errorf("chaos.downstream.pay.v2-eu %+v (kinds default to all)", p)
	}
}

func TestParseScenarioDownstreamErrors(t *testing.T) {
	base := "events: {file: e.jsonl}\nconsumer:\n  run: [./c]\n  state: {http: \"http://x\"}\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"bad effect pointer", "downstream:\n  email:\n    effect: {key: receiptId}\n", "s.yaml:7: downstream.email.effect.key: \"receiptId\": not a JSON pointer"},
		{"bad idempotency pointer", "downstream:\n  email:\n    effect: {key: /a}\n    idempotency: {key: /a~9}\n", "s.yaml:8: downstream.email.idempotency.key"},
		{"both key and header", "downstream:\n  email:\n    effect: {key: /a, header: X}\n", "s.yaml:7: downstream.email.effect"},
		{"no effect", "downstream:\n  email:\n    limits: {rate: 5}\n", "s.yaml:6: downstream.email"},
		{"unknown key", "downstream:\n  email:\n    effect: {key: /a}\n    retry: 3\n", "s.yaml:8: downstream.email: unknown key \"retry\""},
		{"bad regexp", "downstream:\n  email:\n    effect: {key: /a}\n    terminal: {when: {pointer: /to, matches: \"(\"}, status: 422}\n", "s.yaml:8: downstream.email.terminal.when.matches: not a regular expression"},
		{"terminal status 2xx", "downstream:\n  email:\n    effect: {key: /a}\n    terminal: {when: {pointer: /to, matches: x}, status: 200}\n", "s.yaml:8: downstream.email.terminal.status"},
		{"bad upstream", "downstream:\n  email:\n    effect: {key: /a}\n    upstream: ftp://x\n", "s.yaml:8: downstream.email.upstream: \"ftp://x\" is not an http URL"},
		{"bad name", "downstream:\n  \"a b\":\n    effect: {key: /a}\n", "s.yaml:6: downstream.a b: stand-in name \"a b\""},
		{"name too long", "downstream:\n  " + strings.Repeat("d", 65) + ":\n    effect: {key: /a}\n", "s.yaml:6: downstream." + strings.Repeat("d", 65) + ": stand-in name"},
		{"same variable", "downstream:\n  a-b:\n    effect: {key: /a}\n  a.b:\n    effect: {key: /a}\n", "both give the consumer EVTOOL_DOWNSTREAM_A_B"},
		{"bad kind", "downstream:\n  email:\n    effect: {key: /a}\nchaos:\n  downstream:\n    email: {rate: 0.1, kinds: [429, 404]}\n", "s.yaml:10: chaos.downstream.email.kinds[1]"},
		{"bad kind name", "downstream:\n  email:\n    effect: {key: /a}\nchaos:\n  downstream:\n    email: {rate: 0.1, kinds: [timeout, hang]}\n", "s.yaml:10: chaos.downstream.email.kinds[1]"},
		{"unknown stand-in in chaos", "downstream:\n  email:\n    effect: {key: /a}\nchaos:\n  downstream:\n    sms: {rate: 0.1}\n", "s.yaml:10: chaos.downstream.sms: \"sms\" is not a stand-in of the downstream section"},
		{"bad outage", "downstream:\n  email:\n    effect: {key: /a}\nchaos:\n  downstream:\n    email: {outage: {duration: 20m}}\n", "s.yaml:10: chaos.downstream.email.outage.duration"},
		{"unknown guarantee", "downstream:\n  email:\n    effect: {key: /a}\nexpect:\n  effects: {email: twice}\n", "s.yaml:9: expect.effects.email"},
		{"unknown stand-in in expect", "downstream:\n  email:\n    effect: {key: /a}\nexpect:\n  retries: {sms: {max_attempts: 3}}\n", "s.yaml:9: expect.retries.sms"},
		{"order without stand-ins", "expect:\n  effects_order: per-key\n", "s.yaml:6: expect.effects_order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte(base+tc.yaml))
			var se *ScenarioError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
