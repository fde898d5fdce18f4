package app

import (
	"context"
	"math"
	"sync"
	"time"
)

// Scheduler shares the heavy work (statistics, explorer tables, figures,
// each chunk of an export) among the clients asking for it: at most Slots
// pieces run at once; the others wait in a queue per client, and a freed
// slot goes to the next client in turn (round robin), so one client's
// many requests never keep another's one request waiting behind them all.
// A client with PerClient requests waiting already is refused at once (a
// flood is refused before the others wait), as is a request past
// MaxQueued waiting in all or still waiting after MaxWait. A refusal is a
// *Busy error.
type Scheduler struct {
	slots, perClient, maxQueued int
	maxWait                     time.Duration

	mu      sync.Mutex
	running int
	queued  int
	clients map[string][]*waiter // waiting requests by client, oldest first
	ring    []string             // the clients with waiting requests, in turn
	next    int                  // the ring's index served next
}

// waiter is one waiting request; granted is closed when it is given a slot.
type waiter struct {
	granted chan struct{}
	done    bool // granted (under the scheduler's lock)
}

// SchedulerConfig sizes a Scheduler.
type SchedulerConfig struct {
	Slots     int           // pieces of work at once (at least 1)
	PerClient int           // most requests one client may have waiting
	MaxQueued int           // most requests waiting in all
	MaxWait   time.Duration // longest wait for a slot
}

// NewScheduler returns a scheduler of c's size.
func NewScheduler(c SchedulerConfig) *Scheduler {
	return &Scheduler{slots: max(1, c.Slots), perClient: max(1, c.PerClient), maxQueued: max(1, c.MaxQueued),
		maxWait: c.MaxWait, clients: map[string][]*waiter{}}
}

// Busy is a request the scheduler refused; RetryAfter is how long the
// client should wait before it asks again.
type Busy struct{ RetryAfter time.Duration }

func (e *Busy) Error() string { return "server busy: too much heavy work waiting" }

// RetryAfterSeconds is RetryAfter in whole seconds, at least 1.
func (e *Busy) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// Acquire waits for a slot for client's request. It returns the function
// that gives the slot back (call it once, when the work is done), or a
// *Busy refusal, or ctx's error when the client goes away while it waits.
func (s *Scheduler) Acquire(ctx context.Context, client string) (release func(), err error) {
	s.mu.Lock()
	if s.running < s.slots && s.queued == 0 {
		s.running++
		s.mu.Unlock()
		return s.releaser(), nil
	}
	if len(s.clients[client]) >= s.perClient || s.queued >= s.maxQueued {
		s.mu.Unlock()
		return nil, &Busy{RetryAfter: s.maxWait}
	}
	w := &waiter{granted: make(chan struct{})}
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
	case <-t.C:
		err = &Busy{RetryAfter: s.maxWait}
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	if w.done {
		// Granted while the timer or the cancel fired: pass the slot on.
		s.mu.Unlock()
		s.releaser()()
		return nil, err
	}
	s.dequeue(client, w)
	s.mu.Unlock()
	return nil, err
}

// releaser gives the slot back once, to the next client in turn.
func (s *Scheduler) releaser() func() {
	var once sync.Once
	return func() { once.Do(s.release) }
}

func (s *Scheduler) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	w.done = true
	close(w.granted)
}

// dequeue takes a waiter that gave up out of its client's queue.
func (s *Scheduler) dequeue(client string, w *waiter) {
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
func (s *Scheduler) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued
}
