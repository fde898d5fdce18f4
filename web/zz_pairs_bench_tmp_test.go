package web

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
)

func TestTmpPairsWebBench(t *testing.T) {
	if os.Getenv("PAIRS_BENCH") == "" {
		t.Skip()
	}
	store, err := data.Open(context.Background(), data.Options{Path: "/tmp/pairsbench/big.db", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{})
	for _, p := range []string{"/pairs/big", "/pairs/big", "/pairs/big?ci=1", "/pairs/big?split=topic", "/pairs/big?split=topic&ci=1",
		"/pairs/big?metric=kappa_unadjusted", "/pairs/big?mode=models&ci=1", "/pairs/big?mode=models&ci=1&sort=spread", "/pairs/big/annotators.csv", "/pairs/big/overview.csv",
		"/pairs/big/comparisons?ann=p0000003&filter=disagree", "/pairs/big/comparisons?q=safety&page=30", "/pairs/big/comparisons/c123"} {
		t0 := time.Now()
		r := get(t, s, p)
		t.Logf("%-60s %d %7d bytes %v", p, r.Code, len(r.Body), time.Since(t0))
	}
}
