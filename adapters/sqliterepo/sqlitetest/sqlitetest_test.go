package sqlitetest_test

import (
	"context"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
)

// TestNewDBIsFreshAndSeparate: every NewDB is an empty database of its own.
func TestNewDBIsFreshAndSeparate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := sqlitetest.NewDB(t), sqlitetest.NewDB(t)
	if a.Path() == b.Path() {
		t.Fatalf("two NewDB share the file %s", a.Path())
	}
	book := catalog.Book{ID: "bk_1", Title: "Dune", CreatedAt: time.Now()}
	if err := a.Repositories().Books.Create(ctx, book, nil); err != nil {
		t.Fatal(err)
	}
	for db, want := range map[*sqliterepo.DB]int64{a: 1, b: 0} {
		if n, err := db.Repositories().Books.Count(ctx); err != nil || n != want {
			t.Fatalf("Count of %s = %d, %v; want %d", db.Path(), n, err, want)
		}
	}
}

func TestStatementCounter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var c sqlitetest.StatementCounter
	r := sqlitetest.NewDB(t, sqliterepo.WithStatementObserver(c.Observe)).Repositories()
	if _, _, err := r.Books.List(ctx, catalog.Query{Page: 1, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Books.Get(ctx, "bk_missing"); err == nil {
		t.Fatal("Get of a missing book succeeded")
	}
	if got, want := c.ByName(), map[string]int{"books.list[title]": 1, "books.count": 1, "books.get": 1}; !maps.Equal(got, want) || c.Total() != 3 {
		t.Fatalf("counted %v (total %d), want %v", got, c.Total(), want)
	}
	c.Reset()
	if c.Total() != 0 {
		t.Fatalf("Total after Reset = %d, want 0", c.Total())
	}
}

// TestNewDBHasEveryRepository: a test database serves every port, the
// school library's included.
func TestNewDBHasEveryRepository(t *testing.T) {
	r := reflect.ValueOf(sqlitetest.NewDB(t).Repositories())
	for i := range r.NumField() {
		if r.Field(i).IsNil() {
			t.Errorf("Repositories().%s is nil", r.Type().Field(i).Name)
		}
	}
}
