package sqliterepo

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// TestOpenKeysBooksStoredBeforeMatchKeys: a book whose match_key is NULL
// (stored before migration 0018) is keyed when the file is opened, and an
// imported record then finds it by title and author.
func TestOpenKeysBooksStoredBeforeMatchKeys(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "keys.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b := library.Book{ID: "lb-1", SchoolID: "school-a", Title: "Les Misérables", Author: "Victor Hugo", CreatedAt: time.Now()}
	if err := NewHoldings(d).CreateBook(ctx, b); err != nil {
		t.Fatal(err)
	}
	// As a version before 0018 left it.
	if _, err := d.write.db.ExecContext(ctx, `UPDATE library_books SET match_key = NULL`); err != nil {
		t.Fatal(err)
	}
	key := holdingsfile.MatchKey("LES MISERABLES", "victor hugo")
	if found, err := NewHoldings(d).BooksByMatchKeys(ctx, "school-a", []string{key}); err != nil || len(found) != 0 {
		t.Fatalf("an unkeyed book is found: %v %v", found, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	found, err := NewHoldings(d).BooksByMatchKeys(ctx, "school-a", []string{key})
	if err != nil || len(found) != 1 || found[0].ID != "lb-1" {
		t.Fatalf("after reopening: %v %v, want the book keyed", found, err)
	}
}
