package web

import (
	"context"
	"errors"
	"testing"
	"time"
)

type grant struct {
	who     string
	release func()
	err     error
}

// enqueue starts client's request and waits until it is queued.
func enqueue(t *testing.T, s *scheduler, client string, out chan<- grant) {
	t.Helper()
	n := s.Waiting()
	go func() {
		rel, err := s.Acquire(context.Background(), client)
		out <- grant{client, rel, err}
	}()
	pollUntil(t, client+" queued", func() bool { return s.Waiting() == n+1 })
}

// A freed slot goes to the clients in turn: X's three requests, queued
// first, do not keep Y's one waiting behind them.
func TestSchedulerRoundRobin(t *testing.T) {
	s := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 4, MaxQueued: 16, MaxWait: time.Hour})
	hold, err := s.Acquire(context.Background(), "A")
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan grant, 8)
	for _, c := range []string{"X", "X", "X", "Y"} {
		enqueue(t, s, c, out)
	}
	var order []string
	release := hold
	for range 4 {
		release()
		g := within(t, out, time.Minute, "a grant")
		if g.err != nil {
			t.Fatal(g.err)
		}
		order = append(order, g.who)
		release = g.release
	}
	release()
	if got := order[0] + order[1] + order[2] + order[3]; got != "XYXX" {
		t.Errorf("served %s, want XYXX", got)
	}
	// Every slot is back: the next request runs at once.
	rel, err := s.Acquire(context.Background(), "Z")
	if err != nil || s.Waiting() != 0 {
		t.Fatalf("after all released: %v, %d waiting", err, s.Waiting())
	}
	rel()
	rel() // a second call gives back nothing more
	if s.running != 0 {
		t.Errorf("%d running after every release", s.running)
	}
}

// A client past its share of the queue is refused at once; the others
// still queue.
func TestSchedulerFloodRefused(t *testing.T) {
	s := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 2, MaxQueued: 16, MaxWait: time.Hour})
	hold, _ := s.Acquire(context.Background(), "A")
	out := make(chan grant, 8)
	enqueue(t, s, "X", out)
	enqueue(t, s, "X", out)
	var busy *busyError
	if _, err := s.Acquire(context.Background(), "X"); !errors.As(err, &busy) || busy.RetryAfterSeconds() < 1 {
		t.Fatalf("X's third request: %v, want a refusal", err)
	}
	enqueue(t, s, "Y", out)
	hold()
	for range 3 {
		g := within(t, out, time.Minute, "a grant")
		g.release()
	}
}

// A request that waits past MaxWait is refused, and one whose client
// goes away leaves the queue; neither keeps a slot.
func TestSchedulerDeadlineAndCancel(t *testing.T) {
	s := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 4, MaxQueued: 16, MaxWait: 50 * time.Millisecond})
	hold, _ := s.Acquire(context.Background(), "A")
	var busy *busyError
	if _, err := s.Acquire(context.Background(), "X"); !errors.As(err, &busy) || s.Waiting() != 0 {
		t.Fatalf("past the deadline: %v, %d waiting", err, s.Waiting())
	}
	s.maxWait = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Acquire(ctx, "Y")
		done <- err
	}()
	pollUntil(t, "Y queued", func() bool { return s.Waiting() == 1 })
	cancel()
	if err := within(t, done, time.Minute, "the cancelled wait"); !errors.Is(err, context.Canceled) || s.Waiting() != 0 {
		t.Fatalf("cancelled: %v, %d waiting", err, s.Waiting())
	}
	hold()
	if s.running != 0 {
		t.Errorf("%d running", s.running)
	}
	// A full queue refuses.
	small := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 4, MaxQueued: 1, MaxWait: time.Hour})
	h, _ := small.Acquire(context.Background(), "A")
	out := make(chan grant, 1)
	enqueue(t, small, "X", out)
	if _, err := small.Acquire(context.Background(), "Y"); !errors.As(err, &busy) {
		t.Errorf("past MaxQueued: %v", err)
	}
	h()
	within(t, out, time.Minute, "X's grant").release()
}

// TestSchedulerFullQueueFair: with the queue full, a client that has used
// the server less than a waiting one takes the place of that client's
// newest request (which is refused); the heaviest user arriving at a full
// queue is refused itself. So clients that wait out a Retry-After get back
// in, instead of the queue staying with those that ask again at once.
func TestSchedulerFullQueueFair(t *testing.T) {
	s := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 4, MaxQueued: 2, MaxWait: time.Hour})
	// H has been served three times already.
	for range 3 {
		rel, err := s.Acquire(context.Background(), "H")
		if err != nil {
			t.Fatal(err)
		}
		rel()
	}
	hold, _ := s.Acquire(context.Background(), "A")
	out := make(chan grant, 8)
	enqueue(t, s, "H", out)
	enqueue(t, s, "H", out) // the queue is full
	var busy *busyError
	if _, err := s.Acquire(context.Background(), "H"); !errors.As(err, &busy) {
		t.Fatalf("H at a full queue: %v, want a refusal", err)
	}
	// L has not been served: it takes the place of H's newest request.
	done := make(chan grant, 1)
	go func() {
		rel, err := s.Acquire(context.Background(), "L")
		done <- grant{"L", rel, err}
	}()
	g := within(t, out, time.Minute, "H's evicted request")
	if g.who != "H" || !errors.As(g.err, &busy) {
		t.Fatalf("evicted: %+v", g)
	}
	pollUntil(t, "L queued", func() bool { return s.Waiting() == 2 })
	// A's slot goes round: H's older request, then L.
	hold()
	first := within(t, out, time.Minute, "H's grant")
	if first.who != "H" || first.err != nil {
		t.Fatalf("first grant %+v", first)
	}
	first.release()
	second := within(t, done, time.Minute, "L's grant")
	if second.err != nil {
		t.Fatal(second.err)
	}
	second.release()
	if s.Waiting() != 0 || s.running != 0 {
		t.Errorf("%d waiting, %d running at the end", s.Waiting(), s.running)
	}
	// A near tie leaves the queue alone: a newcomer against one grant.
	s2 := newSchedulerOf(schedulerConfig{Slots: 1, PerClient: 4, MaxQueued: 1, MaxWait: time.Hour})
	hold2, _ := s2.Acquire(context.Background(), "A")
	out2 := make(chan grant, 2)
	enqueue(t, s2, "B", out2)
	if _, err := s2.Acquire(context.Background(), "C"); !errors.As(err, &busy) {
		t.Errorf("C against B (no grants either): %v, want a refusal", err)
	}
	hold2()
	g2 := within(t, out2, time.Minute, "B's grant")
	g2.release()
}

// TestSchedulerRetryAfter: a refusal's Retry-After is about the time the
// work queued now takes (slots held for their average time), at least a
// second and at most MaxWait.
func TestSchedulerRetryAfter(t *testing.T) {
	s := newSchedulerOf(schedulerConfig{Slots: 2, PerClient: 1, MaxQueued: 8, MaxWait: 10 * time.Second})
	if d := s.retryAfter(); d != time.Second {
		t.Errorf("nothing known: %v, want 1s", d)
	}
	s.release(-1) // a slot given back unused counts no hold time
	s.running = 0
	if s.hold != 0 {
		t.Errorf("hold %v after an unused slot", s.hold)
	}
	s.hold, s.queued, s.running = 800*time.Millisecond, 8, 2
	if d := s.retryAfter(); d != 4*time.Second {
		t.Errorf("10 × 0.8 s over 2 slots: %v, want 4s", d)
	}
	s.hold = time.Minute
	if d := s.retryAfter(); d != 10*time.Second {
		t.Errorf("capped: %v, want MaxWait", d)
	}
}
