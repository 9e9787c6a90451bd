package library_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
)

func TestResolveAppLinkOrder(t *testing.T) {
	shelf := library.Book{ID: "lb1", SchoolID: "s1", ISBN: "0140328726", Title: "Matilda /", Author: "Dahl, Roald, 1916-1990."}
	byISBN := catalog.Book{ID: "bk_9", ISBN: "978-0-14-032872-1", Title: "Matilda (Puffin)", Author: "R. Dahl"}
	byKey := catalog.Book{ID: "bk_2", Title: "Matilda", Author: "Roald Dahl"}
	byKeyToo := catalog.Book{ID: "bk_5", Title: "MATILDA", Author: "Dahl Roald"}
	other := catalog.Book{ID: "bk_1", Title: "The BFG", Author: "Roald Dahl"}
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	choice := func(app string, same bool, days int) library.AppLinkChoice {
		return library.AppLinkChoice{SchoolID: "s1", BookID: "lb1", AppBookID: app, Same: same, At: at.AddDate(0, 0, days)}
	}
	for _, c := range []struct {
		name    string
		choices []library.AppLinkChoice
		books   []catalog.Book
		want    string
		reason  string
	}{
		{"nothing matches", nil, []catalog.Book{other}, "", ""},
		{"ISBN first, in either form", nil, []catalog.Book{byKey, other, byISBN}, "bk_9", library.LinkedByISBN},
		{"title and author, lowest id", nil, []catalog.Book{byKeyToo, byKey, other}, "bk_2", library.LinkedByTitleAuthor},
		{"not same skips the ISBN match", []library.AppLinkChoice{choice("bk_9", false, 0)}, []catalog.Book{byISBN, byKeyToo}, "bk_5", library.LinkedByTitleAuthor},
		{"not same on all", []library.AppLinkChoice{choice("bk_9", false, 0), choice("bk_5", false, 0)}, []catalog.Book{byISBN, byKeyToo}, "", ""},
		{"the librarian outranks the ISBN", []library.AppLinkChoice{choice("bk_1", true, 0)}, []catalog.Book{byISBN, other}, "bk_1", library.LinkedByLibrarian},
		{"the latest same wins", []library.AppLinkChoice{choice("bk_1", true, 2), choice("bk_2", true, 1)}, []catalog.Book{other, byKey}, "bk_1", library.LinkedByLibrarian},
		{"a chosen book that is gone falls back", []library.AppLinkChoice{choice("bk_404", true, 0)}, []catalog.Book{byKey}, "bk_2", library.LinkedByTitleAuthor},
		{"another school's choice is ignored", []library.AppLinkChoice{{SchoolID: "s2", BookID: "lb1", AppBookID: "bk_1", Same: true}}, []catalog.Book{other, byKey}, "bk_2", library.LinkedByTitleAuthor},
		{"another book's choice is ignored", []library.AppLinkChoice{{SchoolID: "s1", BookID: "lb2", AppBookID: "bk_2", Same: false}}, []catalog.Book{byKey}, "bk_2", library.LinkedByTitleAuthor},
	} {
		link, ok := library.ResolveAppLink(shelf, c.choices, c.books)
		if ok != (c.want != "") || link.AppBook.ID != c.want || link.Reason != c.reason {
			t.Errorf("%s: ResolveAppLink = %q %q %v, want %q %q", c.name, link.AppBook.ID, link.Reason, ok, c.want, c.reason)
		}
	}
}

func TestSameWorkIsDecidedPairByPair(t *testing.T) {
	shelf := library.Book{ID: "lb1", SchoolID: "s1", ISBN: "0140328726", Title: "Matilda /", Author: "Dahl, Roald, 1916-1990."}
	first := catalog.Book{ID: "bk_1", Title: "Matilda", Author: "Roald Dahl"}
	second := catalog.Book{ID: "bk_2", Title: "Matilda", Author: "Roald Dahl", ISBN: "9780140328721"}
	other := catalog.Book{ID: "bk_3", Title: "Matilda", Author: "Someone Else"}
	no := library.AppLinkChoice{SchoolID: "s1", BookID: "lb1", AppBookID: "bk_1", Same: false}
	yes := library.AppLinkChoice{SchoolID: "s1", BookID: "lb1", AppBookID: "bk_3", Same: true}
	for _, c := range []struct {
		app     catalog.Book
		choices []library.AppLinkChoice
		why     string
		same    bool
	}{
		{first, nil, library.LinkedByTitleAuthor, true},
		{second, nil, library.LinkedByISBN, true},
		{other, nil, "", false},
		{first, []library.AppLinkChoice{no}, library.LinkedByLibrarian, false},
		{second, []library.AppLinkChoice{no}, library.LinkedByISBN, true},
		{other, []library.AppLinkChoice{no, yes}, library.LinkedByLibrarian, true},
	} {
		if why, same := library.SameWork(shelf, c.app, c.choices); why != c.why || same != c.same {
			t.Errorf("SameWork(%s, %d choices) = %q %v, want %q %v", c.app.ID, len(c.choices), why, same, c.why, c.same)
		}
	}
	// Both editions reach the shelf; the catalogue names the ISBN's.
	if l, _ := library.ResolveAppLink(shelf, nil, []catalog.Book{first, second}); l.AppBook.ID != "bk_2" {
		t.Errorf("ResolveAppLink = %s, want the ISBN's edition", l.AppBook.ID)
	}
}

func TestReadInAppTooCountsAWorkOnce(t *testing.T) {
	books := map[string]library.Book{
		"lb1": {ID: "lb1", SchoolID: "s1", Title: "Matilda /", Author: "Dahl, Roald"},
		"lb2": {ID: "lb2", SchoolID: "s1", Title: "Holes", Author: "Louis Sachar"},
		"lb3": {ID: "lb3", SchoolID: "s1", Title: "The Twits", Author: "Roald Dahl"},
	}
	finished := []library.FinishedLoan{
		{LoanID: "l1", SchoolID: "s1", BookID: "lb1"},
		{LoanID: "l2", SchoolID: "s1", BookID: "lb2"},
		{LoanID: "l3", SchoolID: "s1", BookID: "lb3"},
		{LoanID: "l4", SchoolID: "s1", BookID: "weeded", Title: "Holes", Author: "Sachar, Louis"},
	}
	completed := []catalog.Book{
		{ID: "bk_1", Title: "Matilda", Author: "Roald Dahl"},
		{ID: "bk_2", Title: "The Twits", Author: "Roald Dahl"},
		{ID: "bk_3", Title: "Holes", Author: "Louis Sachar"},
	}
	// The school parted its Twits from the app's.
	choices := []library.AppLinkChoice{{SchoolID: "s1", BookID: "lb3", AppBookID: "bk_2", Same: false}}
	got := library.ReadInAppToo(finished, books, completed, choices)
	if !got["l1"] || !got["l2"] || got["l3"] || !got["l4"] || len(got) != 3 {
		t.Fatalf("ReadInAppToo = %v, want l1, l2 and l4", got)
	}
	if got := library.ReadInAppToo(finished, books, nil, nil); len(got) != 0 {
		t.Fatalf("with nothing read in the app: %v", got)
	}
}
