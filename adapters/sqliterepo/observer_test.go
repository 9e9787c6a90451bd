package sqliterepo_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
)

// statementLog records the statements the observer reports.
type statementLog struct {
	mu    sync.Mutex
	names []string
}

func (l *statementLog) observe(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = append(l.names, name)
}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.names
	l.names = nil
	return out
}

// TestStatementObserver: each repository call reports each statement it
// runs, once, by name; the counts are the fixed ones the methods document.
func TestStatementObserver(t *testing.T) {
	var log statementLog
	r := sqlitetest.NewDB(t, sqliterepo.WithStatementObserver(log.observe)).Repositories()
	if got := log.take(); len(got) != 0 {
		t.Fatalf("Open reported %v, want nothing (pragmas and migrations are not repository statements)", got)
	}
	b := catalog.Book{ID: "bk_1", Title: "Dune", Author: "Frank Herbert", CreatedAt: time.Now(),
		Chapters: []catalog.Chapter{{ID: "ch_1", Title: "One"}}}
	b.Normalize()
	texts := []catalog.ChapterText{{ChapterID: "ch_1", BookID: "bk_1", Text: "Spice."}}
	for _, c := range []struct {
		call string
		do   func() error
		want []string
	}{
		{"Books.Create", func() error { return r.Books.Create(testCtx(t), b, texts) },
			[]string{"books.insert", "book_chapters.insert", "chapter_texts.insert", "books_fts.insert"}},
		{"Books.Get", func() error { _, err := r.Books.Get(testCtx(t), "bk_1"); return err }, []string{"books.get"}},
		{"Books.List", func() error { _, _, err := r.Books.List(testCtx(t), catalog.Query{Page: 1, Limit: 20}); return err },
			[]string{"books.list[title]", "books.count"}},
		{"Books.List search", func() error {
			_, _, err := r.Books.List(testCtx(t), catalog.Query{Terms: []string{"dune"}, Genre: "fiction", Sort: catalog.SortRatingDesc})
			return err
		}, []string{"books.list[terms,genre,-rating]", "books.count[terms,genre]"}},
		{"Books.GetMany(nil)", func() error { _, err := r.Books.GetMany(testCtx(t), nil); return err }, nil},
		{"ReadingLists.Add", func() error {
			_, _, err := r.ReadingLists.Add(testCtx(t), catalog.ListItem{ID: "rl_1", AccountID: "a", BookID: "bk_1",
				Status: catalog.WantToRead, Priority: catalog.PriorityNormal})
			return err
		}, []string{"reading_list.insert"}},
		{"ReadingLists.Add again", func() error {
			_, _, err := r.ReadingLists.Add(testCtx(t), catalog.ListItem{ID: "rl_2", AccountID: "a", BookID: "bk_1",
				Status: catalog.Finished, Priority: catalog.PriorityNormal})
			return err
		}, []string{"reading_list.insert", "reading_list.update"}},
		{"Health.Ping", func() error { return r.Health.Ping(testCtx(t)) }, []string{"health.ping"}},
	} {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.call, err)
		}
		if got := log.take(); !slices.Equal(got, c.want) {
			t.Errorf("%s ran %v, want %v", c.call, got, c.want)
		}
	}
}
