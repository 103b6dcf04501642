package schemaregistry

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// Bounds of what a registry may make evtool read: a registry is outside
// input, and a hostile or broken one must not exhaust memory (a schema of
// 300 MB took 3 GB decoded; fetching every version of every subject at
// once multiplied that).
const (
	// DefaultMaxResponse bounds one response body: a catalog schema is at
	// most catalog.MaxFileSize, and a response carries it as a JSON
	// string, escaped.
	DefaultMaxResponse = 32 << 20
	// DefaultMaxResponseTotal bounds all response bodies one client reads.
	DefaultMaxResponseTotal = 512 << 20
	// DefaultMaxConcurrent bounds the requests in flight at once.
	DefaultMaxConcurrent = 4
)

// ResponseTooLargeError reports a response beyond a bound; it names the
// request (URL redacted) and the limit.
type ResponseTooLargeError struct {
	Method, URL string
	Limit       int64
	// Total is set when the bound on all responses was reached.
	Total bool
}

func (e *ResponseTooLargeError) Error() string {
	if e.Total {
		return fmt.Sprintf("reading %s %s: the registry's responses exceed %d bytes in total, the limit (--max-response-total)", e.Method, e.URL, e.Limit)
	}
	return fmt.Sprintf("the response to %s %s is larger than %d bytes, the limit (--max-response)", e.Method, e.URL, e.Limit)
}

// boundedTransport limits the requests in flight and the bytes read.
type boundedTransport struct {
	base            http.RoundTripper
	slots           chan struct{}
	limit, maxTotal int64
	total           atomic.Int64
}

func newBoundedTransport(base http.RoundTripper, limit, maxTotal int64, concurrent int) *boundedTransport {
	if limit <= 0 {
		limit = DefaultMaxResponse
	}
	if maxTotal <= 0 {
		maxTotal = DefaultMaxResponseTotal
	}
	if concurrent <= 0 {
		concurrent = DefaultMaxConcurrent
	}
	return &boundedTransport{base: base, slots: make(chan struct{}, concurrent), limit: limit, maxTotal: maxTotal}
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case t.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	var once sync.Once
	release := func() { once.Do(func() { <-t.slots }) }
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	tooLarge := &ResponseTooLargeError{Method: req.Method, URL: RedactURL(req.URL.String()), Limit: t.limit}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		release()
		return nil, tooLarge
	}
	resp.Body = &boundedBody{rc: resp.Body, t: t, left: t.limit, tooLarge: tooLarge, release: release}
	return resp, nil
}

// boundedBody fails a read past the response's or the client's bound; its
// Close frees the request's slot.
type boundedBody struct {
	rc       io.ReadCloser
	t        *boundedTransport
	left     int64
	tooLarge *ResponseTooLargeError
	release  func()
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, b.tooLarge
	}
	if b.t.total.Add(int64(n)) > b.t.maxTotal {
		return 0, &ResponseTooLargeError{Method: b.tooLarge.Method, URL: b.tooLarge.URL, Limit: b.t.maxTotal, Total: true}
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.release()
	return err
}
