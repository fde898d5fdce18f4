package web

import (
	"context"
	"math"
	"sync"
	"time"
)

// scheduler shares the heavy work (statistics, explorer tables, figures,
// each chunk of an export) among the clients asking for it: at most Slots
// pieces run at once; the others wait in a queue per client, and a freed
// slot goes to the next client in turn (round robin), so one client's
// many requests never keep another's one request waiting behind them all.
// A client with PerClient requests waiting already is refused at once (a
// flood is refused before the others wait), as is a request still waiting
// after MaxWait. When MaxQueued requests wait in all, the one refused is
// the heaviest recent user's: a newcomer that has used the server less
// than some waiting client (slots granted, decaying with a half-life of
// usageHalfLife) takes the place of that client's newest waiting request,
// which is refused; else the newcomer is refused. Without that, the clients
// already in the queue kept their places by asking again the moment they
// were answered, and a client that honoured Retry-After never got back in
// (200 clients: 26 served, the rest none). A refusal is a *busyError error.
type scheduler struct {
	slots, perClient, maxQueued int
	maxWait                     time.Duration

	mu      sync.Mutex
	running int
	queued  int
	clients map[string][]*waiter // waiting requests by client, oldest first
	ring    []string             // the clients with waiting requests, in turn
	next    int                  // the ring's index served next
	usage   map[string]usage     // slots granted by client, decaying
	hold    time.Duration        // how long a slot is held, a moving average
}

// usageHalfLife is how fast a client's past use of the server stops
// counting against it when the queue is full.
const usageHalfLife = 10 * time.Second

// usage is a client's decaying count of slots granted, as of at.
type usage struct {
	n  float64
	at time.Time
}

// now is the decayed count at t.
func (u usage) now(t time.Time) float64 {
	return u.n * math.Exp2(-float64(t.Sub(u.at))/float64(usageHalfLife))
}

// waiter is one waiting request; granted is closed when it is given a slot,
// evicted when a lighter client takes its place in a full queue.
type waiter struct {
	granted, evicted chan struct{}
	done             bool // granted (under the scheduler's lock)
}

// schedulerConfig sizes a scheduler.
type schedulerConfig struct {
	Slots     int           // pieces of work at once (at least 1)
	PerClient int           // most requests one client may have waiting
	MaxQueued int           // most requests waiting in all
	MaxWait   time.Duration // longest wait for a slot
}

// newSchedulerOf returns a scheduler of c's size.
func newSchedulerOf(c schedulerConfig) *scheduler {
	return &scheduler{slots: max(1, c.Slots), perClient: max(1, c.PerClient), maxQueued: max(1, c.MaxQueued),
		maxWait: c.MaxWait, clients: map[string][]*waiter{}, usage: map[string]usage{}}
}

// busyError is a request the scheduler refused; RetryAfter is how long the
// client should wait before it asks again.
type busyError struct{ RetryAfter time.Duration }

func (e *busyError) Error() string { return "server busy: too much heavy work waiting" }

// RetryAfterSeconds is RetryAfter in whole seconds, at least 1.
func (e *busyError) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// Acquire waits for a slot for client's request. It returns the function
// that gives the slot back (call it once, when the work is done), or a
// *busyError refusal, or ctx's error when the client goes away while it waits.
func (s *scheduler) Acquire(ctx context.Context, client string) (release func(), err error) {
	s.mu.Lock()
	if s.running < s.slots && s.queued == 0 {
		s.running++
		s.used(client)
		s.mu.Unlock()
		return s.releaser(), nil
	}
	if len(s.clients[client]) >= s.perClient || (s.queued >= s.maxQueued && !s.evictFor(client)) {
		busy := &busyError{RetryAfter: s.retryAfter()}
		s.mu.Unlock()
		return nil, busy
	}
	w := &waiter{granted: make(chan struct{}), evicted: make(chan struct{})}
	if len(s.clients[client]) == 0 {
		s.ring = append(s.ring, client)
	}
	s.clients[client] = append(s.clients[client], w)
	s.queued++
	s.mu.Unlock()

	t := time.NewTimer(s.maxWait)
	defer t.Stop()
	select {
	case <-w.granted:
		return s.releaser(), nil
	case <-w.evicted: // out of the queue already
		s.mu.Lock()
		busy := &busyError{RetryAfter: s.retryAfter()}
		s.mu.Unlock()
		return nil, busy
	case <-t.C:
		err = &busyError{RetryAfter: s.maxWait}
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	if w.done {
		// Granted while the timer or the cancel fired: pass the slot on.
		s.mu.Unlock()
		s.release(-1) // nothing ran: no hold time to count
		return nil, err
	}
	s.dequeue(client, w)
	s.mu.Unlock()
	return nil, err
}

// releaser gives the slot back once, to the next client in turn.
func (s *scheduler) releaser() func() {
	var once sync.Once
	start := time.Now()
	return func() { once.Do(func() { s.release(time.Since(start)) }) }
}

// retryAfter is how long a refused client should wait before it asks
// again (under the lock): about the time the work queued now takes, at
// least a second and at most MaxWait. A refused client that waited the
// whole MaxWait (10 s) came back after its turn had passed many times.
func (s *scheduler) retryAfter() time.Duration {
	d := time.Duration(s.queued+s.running) * s.hold / time.Duration(s.slots)
	return min(max(d, time.Second), max(s.maxWait, time.Second))
}

func (s *scheduler) release(held time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case held < 0:
	case s.hold == 0:
		s.hold = held
	default:
		s.hold += (held - s.hold) / 8
	}
	if s.queued == 0 {
		s.running--
		return
	}
	// The slot passes to the oldest request of the next client in turn.
	i := s.next % len(s.ring)
	client := s.ring[i]
	w := s.clients[client][0]
	s.clients[client] = s.clients[client][1:]
	if len(s.clients[client]) == 0 {
		delete(s.clients, client)
		s.ring = append(s.ring[:i], s.ring[i+1:]...)
		s.next = i // the client after it moved into its place
	} else {
		s.next = i + 1
	}
	if len(s.ring) > 0 {
		s.next %= len(s.ring)
	} else {
		s.next = 0
	}
	s.queued--
	s.used(client)
	w.done = true
	close(w.granted)
}

// used counts a slot granted to client (under the lock), and forgets the
// clients whose use has decayed away once there are many.
func (s *scheduler) used(client string) {
	now := time.Now()
	s.usage[client] = usage{n: s.usage[client].now(now) + 1, at: now}
	if len(s.usage) > 4096 {
		for c, u := range s.usage {
			if u.now(now) < 0.01 {
				delete(s.usage, c)
			}
		}
	}
}

// evictFor makes room in a full queue for client when a waiting client has
// used the server more (under the lock): that client's newest waiting
// request is refused. It reports whether it made room.
func (s *scheduler) evictFor(client string) bool {
	now := time.Now()
	mine := s.usage[client].now(now)
	heaviest, most := "", mine+0.5 // a near tie keeps the queue as it is
	for _, c := range s.ring {
		if u := s.usage[c].now(now); u > most {
			heaviest, most = c, u
		}
	}
	if heaviest == "" {
		return false
	}
	ws := s.clients[heaviest]
	w := ws[len(ws)-1]
	s.dequeue(heaviest, w)
	close(w.evicted)
	return true
}

// dequeue takes a waiter that gave up out of its client's queue.
func (s *scheduler) dequeue(client string, w *waiter) {
	ws := s.clients[client]
	for i, x := range ws {
		if x == w {
			s.clients[client] = append(ws[:i:i], ws[i+1:]...)
			s.queued--
			break
		}
	}
	if len(s.clients[client]) > 0 {
		return
	}
	delete(s.clients, client)
	for i, c := range s.ring {
		if c == client {
			s.ring = append(s.ring[:i], s.ring[i+1:]...)
			if s.next > i {
				s.next--
			}
			break
		}
	}
	if len(s.ring) > 0 {
		s.next %= len(s.ring)
	} else {
		s.next = 0
	}
}

// Waiting is how many requests wait, for tests and the log.
func (s *scheduler) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued
}
