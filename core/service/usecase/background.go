package usecase

import (
	"context"
	"sync"
	"time"
)

// background runs work after a request has been answered, a bounded number
// at a time. Beyond the bound the caller runs the work itself (slower, but
// nothing is dropped), which only a flood past the rate limits reaches.
//
// One count records the work under way, inline or not: the pending-mail
// gauge reads it and Wait waits for it to reach zero.
type Background struct {
	slots   chan struct{}
	OnError func(op string, err error)
	timeout time.Duration // bounds each piece of work

	mu      sync.Mutex
	pending int64         // work started and not yet ended
	done    chan struct{} // closed while pending is zero
}

// backgroundSlots bounds the mails being sent at once; backgroundTimeout
// bounds each one (an unreachable mail server must not pile them up).
const (
	backgroundSlots   = 32
	backgroundTimeout = time.Minute
)

func NewBackground(onError func(string, error)) *Background {
	done := make(chan struct{})
	close(done)
	return &Background{slots: make(chan struct{}, backgroundSlots), OnError: onError, timeout: backgroundTimeout, done: done}
}

func (b *Background) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == 0 {
		b.done = make(chan struct{})
	}
	b.pending++
}

func (b *Background) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending--
	if b.pending == 0 {
		close(b.done)
	}
}

// count returns the work under way.
func (b *Background) Count() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending
}

// idle returns a channel closed once no work is under way.
func (b *Background) Idle() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// run calls fn with a context that keeps ctx's values (request id, logger)
// but not its cancellation: the request is answered before fn ends.
func (b *Background) Run(ctx context.Context, op string, fn func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.timeout)
	b.begin()
	work := func() {
		defer b.end()
		defer cancel()
		if err := fn(ctx); err != nil && b.OnError != nil {
			b.OnError(op, err)
		}
	}
	select {
	case b.slots <- struct{}{}:
		go func() {
			defer func() { <-b.slots }()
			work()
		}()
	default:
		work()
	}
}
