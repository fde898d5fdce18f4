package e2e

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditscope/auditscope/web"
)

// TestConcurrentRequests runs many requests against one store at once (run
// it with -race): pages share the statistics and pairs caches.
func TestConcurrentRequests(t *testing.T) {
	// Eight clients on two cores with every cache cold (under the race
	// detector the demo's statistics take seconds): the test is about
	// answers, not about refusals under load, so heavy requests wait as
	// long as they need (the queue holds all eight).
	s := web.New(mustDemoStore(t), slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{Wait: time.Hour})
	paths := []string{
		"/", "/experiments/demo", "/experiments/small/rwr", "/audits?exp=small&q=moscow", "/audits/small:a1",
		"/experiments/small/cycles", "/pairs/icai-example-v2-models", "/experiments/demo/figures/scores.svg?kind=baseline",
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				p := paths[(w+i)%len(paths)]
				if r := get(t, s, p); r.Code != http.StatusOK {
					errs <- p + ": " + r.Header.Get("Content-Type")
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error("request failed:", e)
	}
}

func TestLongQueryRejected(t *testing.T) {
	s := mustDemo(t)
	mustGet(t, s, "/audits?q="+strings.Repeat("x", 5000), http.StatusBadRequest, "text/html")
}
