package downstream

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRequest measures one request to a stand-in (effect key from
// the body, idempotency header, logged) against a bare net/http handler
// that reads the body and answers 202, both on 127.0.0.1 over a keep-alive
// client, in the same run: the stand-in's overhead per request.
func BenchmarkRequest(b *testing.B) {
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(202)
	}))
	defer bare.Close()
	s, err := Start(Config{Name: "email", Effect: Selector{Pointer: "/receiptId"}, Idempotency: &Selector{Header: "Idempotency-Key"}, Answer: Answer{Status: 202}}, NewPlan())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ name, url string }{{"bare", bare.URL}, {"standin", s.URL()}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &http.Client{}
			for i := range b.N {
				id := strconv.Itoa(i)
				req, _ := http.NewRequest("POST", tc.url+"/send", strings.NewReader(`{"receiptId":"r-`+id+`","to":"a@example.com"}`))
				req.Header.Set("Idempotency-Key", id)
				resp, err := c.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 202 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
