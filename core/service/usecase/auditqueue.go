package usecase

import (
	"context"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// DefaultAuditQueue is how many audit entries may wait for the writer.
// An entry is some hundreds of bytes: a full queue holds well under a
// megabyte, and drains in about a second at the embedded store's speed.
const DefaultAuditQueue = 1024

// QueuedAuditLog is an audit log store whose Append returns as soon as the
// entry is queued; one writer goroutine stores the queued entries in order.
// The action an entry describes has already happened when it is recorded,
// so the request need not wait for the entry's own write: on the desk's
// check-out that write was a third of the request's time.
//
// Nothing is dropped: a full queue makes Append wait for room (up to its
// context's deadline), an entry the store refuses goes to onError as a
// direct write's failure would, and Close stores what is queued before the
// store closes. Every read, erasure and deletion first waits until the
// entries queued before it are stored, so a reader sees every action that
// was answered before its request, and a deleted person's details are
// never written after their erasure.
type QueuedAuditLog struct {
	repo    ports.AuditLogRepository
	onError func(op string, err error)
	queue   chan queuedAudit
	done    chan struct{}
	// mu guards closed: Append and flush hold it shared while they send,
	// Close exclusively while it closes the queue.
	mu     sync.RWMutex
	closed bool
}

var _ ports.AuditLogRepository = (*QueuedAuditLog)(nil)

// queuedAudit is an entry to store, or, with flushed set, a marker the
// writer closes once every entry before it is stored.
type queuedAudit struct {
	entry   library.AuditEntry
	flushed chan struct{}
}

// auditWriteTimeout bounds one queued entry's write.
const auditWriteTimeout = 30 * time.Second

// NewQueuedAuditLog starts the writer of repo with room for size entries
// (DefaultAuditQueue when size < 1). onError (may be nil) is told of an
// entry the store refused, by action and target. Close stops the writer.
func NewQueuedAuditLog(repo ports.AuditLogRepository, size int, onError func(op string, err error)) *QueuedAuditLog {
	MustHave("NewQueuedAuditLog", struct{ Repo ports.AuditLogRepository }{repo})
	if size < 1 {
		size = DefaultAuditQueue
	}
	q := &QueuedAuditLog{repo: repo, onError: onError, queue: make(chan queuedAudit, size), done: make(chan struct{})}
	go q.write()
	return q
}

func (q *QueuedAuditLog) write() {
	defer close(q.done)
	for item := range q.queue {
		if item.flushed != nil {
			close(item.flushed)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), auditWriteTimeout)
		err := q.repo.Append(ctx, item.entry)
		cancel()
		if err != nil && q.onError != nil {
			q.onError("audit log: record "+string(item.entry.Action)+" of "+item.entry.Target, err)
		}
	}
}

// Append queues e for the writer and returns; once the log is closed it
// stores e itself. An error means e was not queued: ctx ended while the
// queue was full.
func (q *QueuedAuditLog) Append(ctx context.Context, e library.AuditEntry) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return q.repo.Append(ctx, e)
	}
	select {
	case q.queue <- queuedAudit{entry: e}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Flush waits until every entry queued before it is stored (or ctx ends).
func (q *QueuedAuditLog) Flush(ctx context.Context) error {
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return nil
	}
	flushed := make(chan struct{})
	select {
	case q.queue <- queuedAudit{flushed: flushed}:
		q.mu.RUnlock()
	case <-ctx.Done():
		q.mu.RUnlock()
		return context.Cause(ctx)
	}
	select {
	case <-flushed:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Pending is how many entries (and flush markers) wait for the writer.
func (q *QueuedAuditLog) Pending() int { return len(q.queue) }

// Close stores what is queued and stops the writer; later calls store
// their entries directly. It returns ctx's error if the queue did not
// drain in time (the writer goes on until it has).
func (q *QueuedAuditLog) Close(ctx context.Context) error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.queue)
	}
	q.mu.Unlock()
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Page implements ports.AuditLogRepository once the queue is stored.
func (q *QueuedAuditLog) Page(ctx context.Context, query library.AuditQuery, limit int) ([]library.AuditEntry, error) {
	if err := q.Flush(ctx); err != nil {
		return nil, err
	}
	return q.repo.Page(ctx, query, limit)
}

// OfSubject implements ports.AuditLogRepository once the queue is stored.
func (q *QueuedAuditLog) OfSubject(ctx context.Context, subjectID string, limit int) ([]library.AuditEntry, error) {
	if err := q.Flush(ctx); err != nil {
		return nil, err
	}
	return q.repo.OfSubject(ctx, subjectID, limit)
}

// Erase implements ports.AuditLogRepository once the queue is stored.
func (q *QueuedAuditLog) Erase(ctx context.Context, e library.AuditEntry) error {
	if err := q.Flush(ctx); err != nil {
		return err
	}
	return q.repo.Erase(ctx, e)
}

// DeleteBefore implements ports.AuditLogRepository once the queue is
// stored.
func (q *QueuedAuditLog) DeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	if err := q.Flush(ctx); err != nil {
		return 0, err
	}
	return q.repo.DeleteBefore(ctx, cutoff, limit)
}
