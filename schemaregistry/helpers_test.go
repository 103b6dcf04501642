package schemaregistry

import (
	"context"
	"testing"
)

func newClient(t testing.TB, o ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

const placed = "com.example.order.placed"
