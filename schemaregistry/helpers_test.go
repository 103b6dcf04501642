package schemaregistry

import (
	"context"
	"testing"
)

// MustNewClient is NewClient or a failed test (exported for the external
// test package, servers_test.go).
func MustNewClient(t testing.TB, o ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

const placed = "com.example.order.placed"
