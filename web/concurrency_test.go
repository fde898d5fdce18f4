package web

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestConcurrentRequests sends every kind of request at once to one server
// over the hand-made store, eight clients at a time, each round with cold
// caches and then warm ones: pages, CSVs and figures share the response
// cache, the statistics cache and the scheduler. CI runs web's tests under
// the race detector, where this is the test of those locks (the real store's
// own are data's, watch's and the lake's); every answer must be the one a
// lone request gets from a server of its own.
func TestConcurrentRequests(t *testing.T) {
	paths := []string{
		"/", "/experiments/x", "/experiments/x/scores.csv", "/experiments/x/compare?a=alpha&b=beta",
		"/experiments/x/compare.csv?a=alpha&b=beta", "/experiments/x/transfer", "/audits?exp=x",
		"/audits?exp=x&auditor=alpha", "/audits.csv?exp=x", "/experiments/x/figures/scores.svg",
	}
	// Every client is one address here and all eight queue at once: the
	// test is about answers, not refusals (limit_test.go's).
	cfg := Config{Wait: time.Hour, ClientQueue: 64, Queue: 64}
	want := map[string]string{}
	for _, p := range paths {
		want[p] = mustGet(t, fakeServer(t, handMade(), cfg), p, http.StatusOK, "").Body
	}
	s := fakeServer(t, handMade(), cfg)
	var wg sync.WaitGroup
	errs := make(chan string, 8*2*len(paths))
	for w := range 8 {
		wg.Go(func() {
			for i := range 2 * len(paths) {
				p := paths[(w+i)%len(paths)]
				if r := get(t, s, p); r.Code != http.StatusOK {
					errs <- p + ": status " + http.StatusText(r.Code)
				} else if r.Body != want[p] {
					errs <- p + ": not the lone request's answer"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
