package app

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Memo remembers the results of an expensive load by key. It is the one
// cache mechanism of the server: statistics per experiment, comparisons,
// vote matrices per dataset and what is derived from them, and whole
// responses by URL (cache.go) are each a memo.
// Callers key their values by the data's version (serve --watch changes
// the store while it serves), so a value stays right for its key until it
// is evicted; the LRU bound keeps memory in check.
//
// Each key loads at most once at a time (single flight): callers that ask
// for a key while it loads wait for that load instead of starting their
// own, and a load never blocks callers of other keys. Errors are returned
// to everyone who waited but not remembered, so the next caller tries
// again. A loader that panics is turned into an error (*memoPanic) for its
// callers: waiters must not hang on a load that will never finish, and the
// key must not stay marked as loading.
type Memo[K comparable, V any] struct {
	// mu guards inflight and keeps a finished load's hand-over atomic: a
	// load is added to cache before it leaves inflight, so a caller sees
	// either. It is never held while loading.
	mu       sync.Mutex
	cache    *lru.Cache[K, V]
	inflight map[K]*memoCall[V]

	// Keep, when set, says whether a loaded value is remembered: one that
	// is not (a response too big to keep, or an error page) still goes to
	// the callers waiting for it.
	Keep func(V) bool
	// Cost, when set, is a value's share of MaxCost (a response's bytes):
	// the least recently used values go until the rest fit. total is the
	// cost of the remembered values; mu guards it.
	Cost    func(V) int
	MaxCost int
	total   int

	// Waiting, when set (by tests), is called as a caller starts waiting
	// for another caller's load of key.
	Waiting func(key K)
}

// memoCall is one load in progress; done is closed once val and err are set.
type memoCall[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// memoPanic is the error a panicking loader becomes.
type memoPanic struct {
	value any
	stack []byte
}

func (p *memoPanic) Error() string {
	return fmt.Sprintf("loader panicked: %v\n%s", p.value, p.stack)
}

// NewMemo remembers up to size values.
func NewMemo[K comparable, V any](size int) *Memo[K, V] {
	m := &Memo[K, V]{inflight: map[K]*memoCall[V]{}}
	// Called for every value that leaves the cache, under mu.
	evicted := func(_ K, v V) {
		if m.Cost != nil {
			m.total -= m.Cost(v)
		}
	}
	c, err := lru.NewWithEvict[K, V](size, evicted)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	m.cache = c
	return m
}

// add remembers v under key, if it is to be kept, then drops the least
// recently used values until the rest fit in maxCost. The caller holds mu.
func (m *Memo[K, V]) add(key K, v V) {
	if m.Keep != nil && !m.Keep(v) {
		return
	}
	if m.Cost == nil {
		m.cache.Add(key, v)
		return
	}
	if old, ok := m.cache.Peek(key); ok { // replaced without an eviction
		m.total -= m.Cost(old)
	}
	m.cache.Add(key, v)
	m.total += m.Cost(v)
	for m.total > m.MaxCost && m.cache.Len() > 0 {
		m.cache.RemoveOldest()
	}
}

// Put remembers v under key as add does, for a value loaded outside Get.
func (m *Memo[K, V]) Put(key K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.add(key, v)
}

// Get returns key's value, calling load when it is neither remembered nor
// loading. The load runs in the first caller's goroutine (so a limit on
// concurrent requests also bounds the loads) without that request's
// cancellation, because other requests may be waiting for it; waiters give
// up when their own ctx ends.
func (m *Memo[K, V]) Get(ctx context.Context, key K, load func(context.Context) (V, error)) (V, error) {
	v, done, err := m.Begin(ctx, key)
	if done == nil {
		return v, err
	}
	v, err = safeLoad(context.WithoutCancel(ctx), load)
	done(v, err)
	return v, err
}

// Begin is Get for a caller that loads the value itself and may hand it to
// the waiters before its own work ends (a response sent to the waiters
// while its first client still reads it). When key is remembered, or
// another caller's load of it ends, Begin returns that value (or the
// load's error, or ctx's when ctx ends first) and a nil done. Otherwise the
// caller is the loader: done is not nil, and the caller must call it once
// with the value or error, which ends the waits; later calls do nothing.
func (m *Memo[K, V]) Begin(ctx context.Context, key K) (v V, done func(V, error), err error) {
	m.mu.Lock()
	if v, ok := m.cache.Get(key); ok {
		m.mu.Unlock()
		return v, nil, nil
	}
	if call, ok := m.inflight[key]; ok {
		m.mu.Unlock()
		if m.Waiting != nil {
			m.Waiting(key)
		}
		select {
		case <-call.done:
			return call.val, nil, call.err
		case <-ctx.Done():
			var zero V
			return zero, nil, ctx.Err()
		}
	}
	call := &memoCall[V]{done: make(chan struct{})}
	m.inflight[key] = call
	m.mu.Unlock()
	var once sync.Once
	return v, func(val V, err error) {
		once.Do(func() {
			m.mu.Lock()
			call.val, call.err = val, err
			if err == nil {
				m.add(key, val)
			}
			delete(m.inflight, key)
			m.mu.Unlock()
			close(call.done)
		})
	}, nil
}

// safeLoad calls load, turning a panic into a *memoPanic error.
func safeLoad[V any](ctx context.Context, load func(context.Context) (V, error)) (v V, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero V
			v, err = zero, &memoPanic{value: r, stack: debug.Stack()}
		}
	}()
	return load(ctx)
}

// RemoveFunc forgets every remembered key for which drop is true. Loads in
// progress are left to finish.
func (m *Memo[K, V]) RemoveFunc(drop func(K) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.cache.Keys() {
		if drop(k) {
			m.cache.Remove(k)
		}
	}
}

// Len is the number of remembered values.
func (m *Memo[K, V]) Len() int { return m.cache.Len() }

// Contains reports whether key's value is remembered, without touching its
// place in the LRU order.
func (m *Memo[K, V]) Contains(key K) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.Contains(key)
}

// TotalCost is the cost of the remembered values (0 without Cost).
func (m *Memo[K, V]) TotalCost() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Loading is the number of loads in progress.
func (m *Memo[K, V]) Loading() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.inflight)
}
