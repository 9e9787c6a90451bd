package usecase_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// gatedAudit is an audit store that logs what it is asked, in order, and
// whose appends wait while the gate is shut.
type gatedAudit struct {
	gate    chan struct{}
	failing bool
	mu      sync.Mutex
	ops     []string
	stored  []library.AuditEntry
}

func newGatedAudit(open bool) *gatedAudit {
	g := &gatedAudit{gate: make(chan struct{})}
	if open {
		close(g.gate)
	}
	return g
}

func (g *gatedAudit) log(op string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ops = append(g.ops, op)
}

func (g *gatedAudit) Append(ctx context.Context, e library.AuditEntry) error {
	<-g.gate
	if g.failing {
		return errors.New("disk full")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ops = append(g.ops, "append "+e.ID)
	g.stored = append(g.stored, e)
	return nil
}

func (g *gatedAudit) Page(ctx context.Context, q library.AuditQuery, limit int) ([]library.AuditEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ops = append(g.ops, "page")
	return slices.Clone(g.stored), nil
}

func (g *gatedAudit) OfSubject(ctx context.Context, subjectID string, limit int) ([]library.AuditEntry, error) {
	g.log("of " + subjectID)
	return nil, nil
}

func (g *gatedAudit) Erase(ctx context.Context, e library.AuditEntry) error {
	g.log("erase " + e.ID)
	return nil
}

func (g *gatedAudit) DeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	g.log("delete")
	return 0, nil
}

func (g *gatedAudit) storedIDs() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := make([]string, len(g.stored))
	for i, e := range g.stored {
		ids[i] = e.ID
	}
	return ids
}

func entry(n int) library.AuditEntry {
	return library.AuditEntry{ID: fmt.Sprintf("e%03d", n), Action: library.AuditLoanDueDate, Target: fmt.Sprintf("loan-%d", n)}
}

// TestQueuedAuditLogAnswersBeforeTheWrite: Append returns while the store
// is still busy, and a read waits for every entry queued before it, in
// the order they were recorded.
func TestQueuedAuditLogAnswersBeforeTheWrite(t *testing.T) {
	store := newGatedAudit(false)
	q := usecase.NewQueuedAuditLog(store, 16, nil)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	var want []string
	for n := range 10 {
		if err := q.Append(context.Background(), entry(n)); err != nil {
			t.Fatal(err)
		}
		want = append(want, entry(n).ID)
	}
	if got := store.storedIDs(); len(got) != 0 {
		t.Fatalf("stored %v while the store was held: Append waited for the write", got)
	}
	if q.Pending() == 0 {
		t.Error("Pending is 0 with ten entries waiting")
	}
	read := make(chan []library.AuditEntry)
	go func() {
		es, err := q.Page(context.Background(), library.AuditQuery{}, 100)
		if err != nil {
			t.Error(err)
		}
		read <- es
	}()
	close(store.gate)
	es := <-read
	if len(es) != len(want) {
		t.Fatalf("the read saw %d entries, want the %d recorded before it", len(es), len(want))
	}
	if got := store.storedIDs(); !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v in order", got, want)
	}
}

// TestQueuedAuditLogFullQueueWaits: with the queue full, Append waits
// for room rather than dropping the entry, and gives up only when its
// context ends, saying so.
func TestQueuedAuditLogFullQueueWaits(t *testing.T) {
	store := newGatedAudit(false)
	q := usecase.NewQueuedAuditLog(store, 2, nil)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	// The writer takes one entry and waits at the gate; two fill the queue.
	for n := range 3 {
		if err := q.Append(context.Background(), entry(n)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := q.Append(ctx, entry(99)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append on a full queue: %v, want the deadline's error", err)
	}
	waited := make(chan error)
	go func() { waited <- q.Append(context.Background(), entry(3)) }()
	select {
	case err := <-waited:
		t.Fatalf("Append on a full queue returned (%v) before there was room", err)
	case <-time.After(30 * time.Millisecond):
	}
	close(store.gate)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if err := q.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := store.storedIDs(), []string{"e000", "e001", "e002", "e003"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v (the refused entry left out)", got, want)
	}
}

// TestQueuedAuditLogCloseStoresTheQueue: Close returns once every queued
// entry is stored, and an entry recorded after it is stored directly.
func TestQueuedAuditLogCloseStoresTheQueue(t *testing.T) {
	store := newGatedAudit(false)
	q := usecase.NewQueuedAuditLog(store, 64, nil)
	for n := range 20 {
		if err := q.Append(context.Background(), entry(n)); err != nil {
			t.Fatal(err)
		}
	}
	go close(store.gate)
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(store.storedIDs()); got != 20 {
		t.Fatalf("%d entries stored at Close, want 20", got)
	}
	if err := q.Append(context.Background(), entry(20)); err != nil {
		t.Fatal(err)
	}
	if got := len(store.storedIDs()); got != 21 {
		t.Errorf("%d entries stored after an Append past Close, want 21", got)
	}
	if err := q.Close(context.Background()); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestQueuedAuditLogErasesAfterTheQueue: an erasure, a lookup of a
// person's entries and the retention sweep each wait for the entries
// queued before them, so a deleted person's details are never stored
// after their erasure.
func TestQueuedAuditLogErasesAfterTheQueue(t *testing.T) {
	store := newGatedAudit(false)
	q := usecase.NewQueuedAuditLog(store, 8, nil)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	_ = q.Append(context.Background(), entry(1))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = q.OfSubject(context.Background(), "student-1", 10)
		_ = q.Erase(context.Background(), entry(1))
		_ = q.Append(context.Background(), entry(2))
		_, _ = q.DeleteBefore(context.Background(), time.Now(), 10)
	}()
	close(store.gate)
	<-done
	want := []string{"append e001", "of student-1", "erase e001", "append e002", "delete"}
	store.mu.Lock()
	defer store.mu.Unlock()
	if !slices.Equal(store.ops, want) {
		t.Errorf("the store was asked %q, want %q", store.ops, want)
	}
}

// TestQueuedAuditLogReportsRefusedEntries: an entry the store refuses is
// reported with its action and target, and the writer goes on.
func TestQueuedAuditLogReportsRefusedEntries(t *testing.T) {
	store := newGatedAudit(true)
	store.failing = true
	var mu sync.Mutex
	var reports []string
	q := usecase.NewQueuedAuditLog(store, 8, func(op string, err error) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, op+": "+err.Error())
	})
	_ = q.Append(context.Background(), entry(7))
	_ = q.Append(context.Background(), entry(8))
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"audit log: record loan.due_date of loan-7: disk full", "audit log: record loan.due_date of loan-8: disk full"}
	if !slices.Equal(reports, want) {
		t.Errorf("reports %q, want %q", reports, want)
	}
}

// TestQueuedAuditLogManyWriters: entries recorded at once from many
// requests are all stored, each once.
func TestQueuedAuditLogManyWriters(t *testing.T) {
	store := newGatedAudit(true)
	q := usecase.NewQueuedAuditLog(store, 4, nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for n := range 50 {
				if err := q.Append(context.Background(), entry(w*50+n)); err != nil {
					t.Error(err)
				}
				if n%10 == 0 {
					_ = q.Flush(context.Background())
				}
			}
		})
	}
	wg.Wait()
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := store.storedIDs()
	slices.Sort(got)
	if n, distinct := len(got), len(slices.Compact(got)); n != 400 || distinct != 400 {
		t.Errorf("%d entries stored, %d distinct; want 400 of 400", n, distinct)
	}
}
