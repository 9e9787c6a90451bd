package porttest

// The reading list port's contract, run by the Catalog suite.

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

func checkItem(t *testing.T, call string, got, want catalog.ListItem) {
	t.Helper()
	if !sameTime(got.AddedAt, want.AddedAt) || !sameTime(got.UpdatedAt, want.UpdatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.AddedAt, got.UpdatedAt, want.AddedAt, want.UpdatedAt)
	}
	got.AddedAt, got.UpdatedAt = want.AddedAt, want.UpdatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func newItem(accountID, bookID string, status catalog.ListStatus, at time.Time) catalog.ListItem {
	return catalog.ListItem{
		ID: newID(catalog.ListItemIDPrefix), AccountID: accountID, BookID: bookID,
		Status: status, Priority: catalog.PriorityNormal, AddedAt: at, UpdatedAt: at,
	}
}

func itemIDs(items []catalog.ListItem) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

func testListAddCreatesThenUpdates(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	first := newItem(acct, book, catalog.WantToRead, base)
	got, created, err := r.ReadingLists.Add(ctx(t), first)
	must(t, "Add", err)
	if !created {
		t.Fatal("Add of a new book: created = false, want true")
	}
	checkItem(t, "Add new", got, first)

	again := newItem(acct, book, catalog.CurrentlyReading, base.Add(time.Hour))
	again.Priority = catalog.PriorityHigh
	got, created, err = r.ReadingLists.Add(ctx(t), again)
	must(t, "Add again", err)
	if created {
		t.Fatal("Add of a listed book: created = true, want false")
	}
	want := first // id and AddedAt kept
	want.Status, want.Priority, want.UpdatedAt = again.Status, again.Priority, again.UpdatedAt
	checkItem(t, "Add again", got, want)
	stored, err := r.ReadingLists.Get(ctx(t), acct, book)
	must(t, "Get", err)
	checkItem(t, "Get after Add again", stored, want)

	all, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(all) != 1 {
		t.Fatalf("List after two Adds of one book = %d items, want 1", len(all))
	}
	// Another account may list the same book.
	otherItem := newItem(uuid.NewString(), book, catalog.WantToRead, base)
	_, created, err = r.ReadingLists.Add(ctx(t), otherItem)
	must(t, "Add by another account", err)
	if !created {
		t.Fatal("Add by another account: created = false, want true")
	}
	_, err = r.ReadingLists.Get(ctx(t), acct, newID(catalog.BookIDPrefix))
	wantErr(t, "Get unlisted book", err, errs.NotFound, "reading_list_item_not_found")
}

func testListAddRace(t *testing.T, r ports.Repositories) {
	const racers = 50
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	statuses := []catalog.ListStatus{catalog.WantToRead, catalog.CurrentlyReading, catalog.Finished}
	items := make([]catalog.ListItem, racers)
	for i := range items {
		items[i] = newItem(acct, book, statuses[i%len(statuses)], base.Add(time.Duration(i)*time.Second))
	}
	c := ctx(t)
	results := make([]catalog.ListItem, racers)
	createdOut := make([]bool, racers)
	errsOut := make([]error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			results[i], createdOut[i], errsOut[i] = r.ReadingLists.Add(c, items[i])
		}()
	}
	start.Done()
	done.Wait()

	winner := -1
	for i := range racers {
		must(t, fmt.Sprintf("Add #%d", i), errsOut[i])
		if createdOut[i] {
			if winner >= 0 {
				t.Fatalf("Add #%d and #%d both report created", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("%d racing Adds: none reports created, want exactly one", racers)
	}
	for i, got := range results {
		if got.ID != items[winner].ID || !sameTime(got.AddedAt, items[winner].AddedAt) {
			t.Fatalf("Add #%d returned item %s added %v, want the created one %s added %v", i, got.ID, got.AddedAt, items[winner].ID, items[winner].AddedAt)
		}
	}
	all, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(all) != 1 || all[0].ID != items[winner].ID {
		t.Fatalf("List after %d racing Adds = %v, want exactly [%s]", racers, itemIDs(all), items[winner].ID)
	}
	readers, err := r.ReadingLists.ReadersByBook(ctx(t), []string{book})
	must(t, "ReadersByBook", err)
	if readers[book] != 1 {
		t.Fatalf("ReadersByBook after %d racing Adds = %v, want %s: 1", racers, readers, book)
	}
}

func testListListOrderAndStatus(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	items := []catalog.ListItem{
		newItem(acct, "bk_1", catalog.WantToRead, base),
		newItem(acct, "bk_2", catalog.CurrentlyReading, base.Add(time.Hour)),
		newItem(acct, "bk_3", catalog.Finished, base.Add(2*time.Hour)),
		newItem(acct, "bk_4", catalog.WantToRead, base.Add(time.Hour)), // same time as bk_2
		newItem(other, "bk_1", catalog.WantToRead, base.Add(3*time.Hour)),
	}
	items[0].ID, items[1].ID, items[2].ID, items[3].ID = "rl_a1", "rl_a2", "rl_a3", "rl_a4"
	for _, it := range items {
		_, _, err := r.ReadingLists.Add(ctx(t), it)
		must(t, "Add "+it.ID, err)
	}
	for _, c := range []struct {
		status catalog.ListStatus
		want   []string
	}{
		{"", []string{"rl_a3", "rl_a4", "rl_a2", "rl_a1"}}, // newest first; equal times by id, descending
		{catalog.WantToRead, []string{"rl_a4", "rl_a1"}},
		{catalog.CurrentlyReading, []string{"rl_a2"}},
		{catalog.Finished, []string{"rl_a3"}},
	} {
		got, err := r.ReadingLists.List(ctx(t), acct, c.status)
		must(t, "List", err)
		if ids := itemIDs(got); !slices.Equal(ids, c.want) {
			t.Fatalf("List status %q = %v, want %v", c.status, ids, c.want)
		}
	}
	got, err := r.ReadingLists.List(ctx(t), acct, catalog.Finished)
	must(t, "List", err)
	checkItem(t, "List entry", got[0], items[2])
	got, err = r.ReadingLists.List(ctx(t), uuid.NewString(), "")
	must(t, "List of an account without items", err)
	if len(got) != 0 {
		t.Fatalf("List of an account without items = %d items, want 0", len(got))
	}
}

func testListRemove(t *testing.T, r ports.Repositories) {
	acct, other, book := uuid.NewString(), uuid.NewString(), newID(catalog.BookIDPrefix)
	for _, a := range []string{acct, other} {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(a, book, catalog.WantToRead, base))
		must(t, "Add", err)
	}
	must(t, "Remove", r.ReadingLists.Remove(ctx(t), acct, book))
	_, err := r.ReadingLists.Get(ctx(t), acct, book)
	wantErr(t, "Get removed", err, errs.NotFound, "reading_list_item_not_found")
	wantErr(t, "Remove again", r.ReadingLists.Remove(ctx(t), acct, book), errs.NotFound, "reading_list_item_not_found")
	wantErr(t, "Remove never listed", r.ReadingLists.Remove(ctx(t), acct, newID(catalog.BookIDPrefix)), errs.NotFound, "reading_list_item_not_found")
	_, err = r.ReadingLists.Get(ctx(t), other, book)
	must(t, "Get other account's item", err)

	// Listing it again creates a new item.
	again := newItem(acct, book, catalog.Finished, base.Add(time.Hour))
	got, created, err := r.ReadingLists.Add(ctx(t), again)
	must(t, "Add after Remove", err)
	if !created {
		t.Fatal("Add after Remove: created = false, want true")
	}
	checkItem(t, "Add after Remove", got, again)
}

func testListReadersByBook(t *testing.T, r ports.Repositories) {
	a, b, c, d := "bk_a", "bk_b", "bk_c", "bk_d"
	for range 3 {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), a, catalog.WantToRead, base))
		must(t, "Add a", err)
	}
	_, _, err := r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), b, catalog.Finished, base))
	must(t, "Add b", err)
	_, _, err = r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), d, catalog.Finished, base))
	must(t, "Add d", err)

	got, err := r.ReadingLists.ReadersByBook(ctx(t), []string{a, b, c})
	must(t, "ReadersByBook", err)
	if want := map[string]int{a: 3, b: 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadersByBook = %v, want %v (unlisted and unasked books absent)", got, want)
	}
	got, err = r.ReadingLists.ReadersByBook(ctx(t), nil)
	must(t, "ReadersByBook(nil)", err)
	if len(got) != 0 {
		t.Fatalf("ReadersByBook(nil) = %v, want empty", got)
	}
}

func testListDeleteByAccount(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	books := []string{"bk_a", "bk_b", "bk_c"}
	for i, book := range books {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(acct, book, catalog.WantToRead, base.Add(time.Duration(i)*time.Minute)))
		must(t, "Add", err)
	}
	otherItem := newItem(other, "bk_a", catalog.Finished, base)
	_, _, err := r.ReadingLists.Add(ctx(t), otherItem)
	must(t, "Add other", err)

	must(t, "DeleteByAccount", r.ReadingLists.DeleteByAccount(ctx(t), acct))
	got, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(got) != 0 {
		t.Fatalf("List after DeleteByAccount = %v, want none", itemIDs(got))
	}
	for _, book := range books {
		_, err := r.ReadingLists.Get(ctx(t), acct, book)
		wantErr(t, "Get deleted item", err, errs.NotFound, "reading_list_item_not_found")
	}
	stored, err := r.ReadingLists.Get(ctx(t), other, "bk_a")
	must(t, "Get other account's item", err)
	checkItem(t, "Get other account's item", stored, otherItem)
	readers, err := r.ReadingLists.ReadersByBook(ctx(t), books)
	must(t, "ReadersByBook", err)
	if want := map[string]int{"bk_a": 1}; !reflect.DeepEqual(readers, want) {
		t.Fatalf("ReadersByBook after DeleteByAccount = %v, want %v", readers, want)
	}

	must(t, "DeleteByAccount again", r.ReadingLists.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount without items", r.ReadingLists.DeleteByAccount(ctx(t), uuid.NewString()))
	// The account may list the book again: a new item.
	again := newItem(acct, "bk_a", catalog.CurrentlyReading, base.Add(time.Hour))
	added, created, err := r.ReadingLists.Add(ctx(t), again)
	must(t, "Add after DeleteByAccount", err)
	if !created {
		t.Fatal("Add after DeleteByAccount: created = false, want true")
	}
	checkItem(t, "Add after DeleteByAccount", added, again)
	got, err = r.ReadingLists.List(ctx(t), other, "")
	must(t, "List other", err)
	if len(got) != 1 || got[0].ID != otherItem.ID {
		t.Fatalf("List of the other account = %v, want [%s]", itemIDs(got), otherItem.ID)
	}
}
