package app

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditscope/auditscope/web/internal/webtest"
)

// within is webtest.Within: a guard against a hang, not a timing
// measurement.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	return webtest.Within(t, ch, d, what)
}

// countWaiters makes m report each caller that starts waiting for a load.
func countWaiters(m *Memo[string, int], n int) <-chan struct{} {
	ch := make(chan struct{}, n)
	m.Waiting = func(string) { ch <- struct{}{} }
	return ch
}

// waitFor receives n signals from ch.
func waitFor(t *testing.T, ch <-chan struct{}, n int, what string) {
	t.Helper()
	for range n {
		within(t, ch, time.Minute, what)
	}
}

type memoResult struct {
	v   int
	err error
}

// getAsync calls m.get in a goroutine and delivers its result.
func getAsync(ctx context.Context, m *Memo[string, int], key string, load func(context.Context) (int, error)) <-chan memoResult {
	ch := make(chan memoResult, 1)
	go func() {
		v, err := m.Get(ctx, key, load)
		ch <- memoResult{v, err}
	}()
	return ch
}

func constLoad(v int) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { return v, nil }
}

// blockingLoad signals started and then waits for release before
// returning v.
func blockingLoad(started chan<- struct{}, release <-chan struct{}, v int) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		started <- struct{}{}
		<-release
		return v, nil
	}
}

// TestMemoSlowKeyDoesNotBlockOtherKeys: while one key loads, a hit on
// another key and a load of a third both finish.
func TestMemoSlowKeyDoesNotBlockOtherKeys(t *testing.T) {
	m := NewMemo[string, int](8)
	ctx := context.Background()
	if v, err := m.Get(ctx, "b", constLoad(2)); err != nil || v != 2 {
		t.Fatalf("b: %v %v", v, err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	slow := getAsync(ctx, m, "a", blockingLoad(started, release, 1))
	within(t, started, time.Minute, "slow load start")

	hit := within(t, getAsync(ctx, m, "b", func(context.Context) (int, error) {
		t.Error("b was loaded again")
		return 0, nil
	}), time.Minute, "hit on b while a loads")
	if hit.v != 2 || hit.err != nil {
		t.Errorf("hit on b: %+v", hit)
	}
	miss := within(t, getAsync(ctx, m, "c", constLoad(3)), time.Minute, "load of c while a loads")
	if miss.v != 3 || miss.err != nil {
		t.Errorf("load of c: %+v", miss)
	}

	close(release)
	if r := within(t, slow, time.Minute, "slow load"); r.v != 1 || r.err != nil {
		t.Errorf("a: %+v", r)
	}
}

// TestMemoSingleFlight: callers of one missing key share one load.
func TestMemoSingleFlight(t *testing.T) {
	m := NewMemo[string, int](8)
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	load := func(context.Context) (int, error) {
		if calls.Add(1) == 1 {
			started <- struct{}{}
			<-release
		}
		return 42, nil
	}
	const n = 50
	waiting := countWaiters(m, n)
	first := getAsync(context.Background(), m, "k", load)
	within(t, started, time.Minute, "load start")
	results := make([]<-chan memoResult, n)
	for i := range results {
		results[i] = getAsync(context.Background(), m, "k", load)
	}
	waitFor(t, waiting, n, "caller waiting for the load")
	close(release)
	for i, ch := range append(results, first) {
		if r := within(t, ch, time.Minute, "caller"); r.v != 42 || r.err != nil {
			t.Errorf("caller %d: %+v", i, r)
		}
	}
	if c := calls.Load(); c != 1 {
		t.Errorf("the loader ran %d times, want 1", c)
	}
}

// TestMemoPanic: a panicking loader releases its waiters with an error,
// is not remembered, and the next caller loads again.
func TestMemoPanic(t *testing.T) {
	m := NewMemo[string, int](8)
	waiting := countWaiters(m, 5)
	started, release := make(chan struct{}), make(chan struct{})
	leader := getAsync(context.Background(), m, "k", func(context.Context) (int, error) {
		started <- struct{}{}
		<-release
		panic("boom")
	})
	within(t, started, time.Minute, "load start")
	var waiters []<-chan memoResult
	for range 5 {
		waiters = append(waiters, getAsync(context.Background(), m, "k", func(context.Context) (int, error) {
			return 0, errors.New("a waiter loaded")
		}))
	}
	waitFor(t, waiting, 5, "caller waiting for the load")
	close(release)
	for i, ch := range append(waiters, leader) {
		r := within(t, ch, time.Minute, "caller of a panicking load")
		if p := (*memoPanic)(nil); !errors.As(r.err, &p) || p.value != "boom" {
			t.Errorf("caller %d: %+v, want the panic as an error", i, r)
		}
	}
	if v, err := m.Get(context.Background(), "k", constLoad(7)); err != nil || v != 7 {
		t.Errorf("after the panic: %v %v, want a fresh load", v, err)
	}
}

// TestMemoErrorsNotCached: an error is returned but the next call loads
// again.
func TestMemoErrorsNotCached(t *testing.T) {
	m := NewMemo[string, int](8)
	boom := errors.New("boom")
	if _, err := m.Get(context.Background(), "k", func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if v, err := m.Get(context.Background(), "k", constLoad(5)); err != nil || v != 5 {
		t.Errorf("after an error: %v %v, want a fresh load", v, err)
	}
	if m.Len() != 1 {
		t.Errorf("%d entries, want 1", m.Len())
	}
}

// TestMemoBound: the least recently used key is evicted past the bound.
func TestMemoBound(t *testing.T) {
	m := NewMemo[string, int](2)
	ctx := context.Background()
	for i, k := range []string{"a", "b", "a", "c"} {
		if _, err := m.Get(ctx, k, constLoad(i)); err != nil {
			t.Fatal(err)
		}
	}
	if m.Len() != 2 {
		t.Fatalf("%d entries, want 2", m.Len())
	}
	var loaded []string
	for _, k := range []string{"a", "c", "b"} {
		m.Get(ctx, k, func(context.Context) (int, error) { loaded = append(loaded, k); return 0, nil })
	}
	if len(loaded) != 1 || loaded[0] != "b" {
		t.Errorf("reloaded %v, want only b (the least recently used)", loaded)
	}
	m.RemoveFunc(func(k string) bool { return k == "b" })
	if m.Len() != 1 {
		t.Errorf("%d entries after removeFunc, want 1", m.Len())
	}
}

// TestMemoWaiterCancel: a waiter whose request ends gives up without
// stopping the load that others need.
func TestMemoWaiterCancel(t *testing.T) {
	m := NewMemo[string, int](8)
	waiting := countWaiters(m, 1)
	started, release := make(chan struct{}), make(chan struct{})
	leader := getAsync(context.Background(), m, "k", blockingLoad(started, release, 9))
	within(t, started, time.Minute, "load start")
	ctx, cancel := context.WithCancel(context.Background())
	waiter := getAsync(ctx, m, "k", constLoad(0))
	waitFor(t, waiting, 1, "caller waiting for the load")
	cancel()
	if r := within(t, waiter, time.Minute, "cancelled waiter"); !errors.Is(r.err, context.Canceled) {
		t.Errorf("cancelled waiter: %+v", r)
	}
	close(release)
	if r := within(t, leader, time.Minute, "leader"); r.v != 9 || r.err != nil {
		t.Errorf("leader: %+v", r)
	}
}

// TestMemoCostAndKeep: values that are not to be kept go to their callers
// only; the kept ones stay within maxCost, a replaced value's cost leaves
// with it, and the least recently used go first.
func TestMemoCostAndKeep(t *testing.T) {
	m := NewMemo[string, string](10)
	m.Keep = func(v string) bool { return v != "" }
	m.Cost = func(v string) int { return len(v) }
	m.MaxCost = 10
	load := func(v string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return v, nil }
	}
	ctx := context.Background()
	if v, _ := m.Get(ctx, "none", load("")); v != "" || m.Len() != 0 {
		t.Fatalf("an unkept value: got %q, %d kept", v, m.Len())
	}
	m.Get(ctx, "a", load("aaaa"))
	m.Get(ctx, "b", load("bbbb"))
	m.Put("a", "aa") // replaced: 2 + 4
	if m.TotalCost() != 6 || m.Len() != 2 {
		t.Fatalf("after the replacement: total %d, %d kept; want 6, 2", m.TotalCost(), m.Len())
	}
	m.Get(ctx, "c", load("cccccc")) // 12 > 10: b, the least recently used, goes
	if ok := m.Contains("b"); ok || m.TotalCost() != 8 || m.Len() != 2 {
		t.Errorf("after c: b kept %v, total %d, %d kept; want b gone, 8, 2", ok, m.TotalCost(), m.Len())
	}
}
