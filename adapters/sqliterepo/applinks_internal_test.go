package sqliterepo

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
)

// TestOpenKeysBooksStoredBeforeAppLinks: a reading-app book and a library
// book whose keys are NULL (stored before migration 0032) are keyed when
// the file is opened, and the app links' lookups then find them.
func TestOpenKeysBooksStoredBeforeAppLinks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "keys.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	app, texts, err := catalog.NewBook("bk_1", catalog.BookDraft{Title: "Matilda", Author: "Roald Dahl", Genre: "fiction",
		ReadingLevel: "beginner", Pages: 3, ISBN: "0-14-032872-6", Chapters: []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 3, Text: "Once."}}},
		func(p string) string { return p + "1" }, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewBooks(d).Create(ctx, app, texts); err != nil {
		t.Fatal(err)
	}
	lib := library.Book{ID: "lb-1", SchoolID: "school-a", Title: "Matilda /", Author: "Dahl, Roald, 1916-1990.", CreatedAt: at}
	if err := NewHoldings(d).CreateBook(ctx, lib); err != nil {
		t.Fatal(err)
	}
	// As a version before 0032 left them.
	for _, q := range []string{`UPDATE books SET isbn13 = NULL, work_key = NULL`, `UPDATE library_books SET work_key = NULL`} {
		if _, err := d.write.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	key := catalog.WorkKey("Matilda", "Roald Dahl")
	lookups := func(d *DB) string {
		t.Helper()
		links := NewAppLinks(d)
		byISBN, err := links.AppBooksByISBN13(ctx, []string{"9780140328721"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		byKey, err := links.AppBooksByWorkKeys(ctx, []string{key}, 10)
		if err != nil {
			t.Fatal(err)
		}
		libByKey, err := links.LibraryBooksByWorkKeys(ctx, "school-a", []string{key}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(bookIDsOf(byISBN), bookIDsOf(byKey), len(libByKey))
	}
	if got := lookups(d); got != "[] [] 0" {
		t.Fatalf("unkeyed books are found: %s", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, want := lookups(d), "[bk_1] [bk_1] 1"; got != want {
		t.Fatalf("after reopening: %s, want %s (the books keyed)", got, want)
	}
}

func bookIDsOf(books []catalog.Book) []string {
	ids := make([]string, len(books))
	for i, b := range books {
		ids[i] = b.ID
	}
	return ids
}
