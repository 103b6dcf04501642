package replay

import "testing"

func TestExpandVars(t *testing.T) {
	t.Setenv("EVTOOL_TEST_FROM_ENV", "env")
	vars := map[string]string{"EVTOOL_TOPIC": "orders-1"}
	for _, c := range []struct{ in, want string }{
		{"${EVTOOL_TOPIC}.dlq", "orders-1.dlq"},
		{"$EVTOOL_TOPIC", "orders-1"},
		{"${EVTOOL_TEST_FROM_ENV}", "env"},
		{"${EVTOOL_TEST_UNSET}", ""},
		{"cost: $$5", "cost: $5"},
		{"sleep 1 & echo $$!", "sleep 1 & echo $!"},
		{"$${EVTOOL_TOPIC}", "${EVTOOL_TOPIC}"},
		{"no vars", "no vars"},
	} {
		if got := expandVars(c.in, vars); got != c.want {
			t.Errorf("expandVars(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
