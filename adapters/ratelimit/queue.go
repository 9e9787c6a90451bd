package ratelimit

import (
	"context"
	"sync"
)

// admissionQueue orders the sign-in attempts of this process that are
// weighed against the same first budget (the client address, or a trusted
// device token): one of them at a time checks the store, the others wait in
// arrival order. A burst of a class's sign-ins so costs one admission check
// per settled attempt, not one per waiting attempt.
type admissionQueue struct {
	mu    sync.Mutex
	turns map[string]*turn
	// changed is closed, and replaced, whenever an attempt settles.
	changed chan struct{}
}

// turn is the right to check the store for one key: a token in a channel
// of capacity one, so waiting for it can end with the context.
type turn struct {
	token   chan struct{}
	holders int // attempts holding or waiting for the turn
}

func newAdmissionQueue() *admissionQueue {
	return &admissionQueue{turns: map[string]*turn{}, changed: make(chan struct{})}
}

// enter waits for the turn of key and returns the function that gives it
// up; a channel hands its value to the receivers waiting on it in the order
// they began to wait. It fails when ctx ends first.
func (q *admissionQueue) enter(ctx context.Context, key string) (leave func(), err error) {
	q.mu.Lock()
	t := q.turns[key]
	if t == nil {
		t = &turn{token: make(chan struct{}, 1)}
		t.token <- struct{}{}
		q.turns[key] = t
	}
	t.holders++
	q.mu.Unlock()
	done := func() {
		q.mu.Lock()
		if t.holders--; t.holders == 0 {
			delete(q.turns, key)
		}
		q.mu.Unlock()
	}
	leave = func() { t.token <- struct{}{}; done() }
	// A free turn is taken even when ctx has ended: the attempt gets one
	// look at the store whatever its deadline.
	select {
	case <-t.token:
		return leave, nil
	default:
	}
	select {
	case <-t.token:
		return leave, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// settled returns a channel closed at the next settlement of an attempt of
// this process. Take it before checking the store, so that a settlement
// between the check and the wait is not missed.
func (q *admissionQueue) settled() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// notify wakes the attempts waiting for a settlement.
func (q *admissionQueue) notify() {
	q.mu.Lock()
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}
