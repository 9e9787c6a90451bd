package library

import (
	"time"

	"github.com/readinglibrary/service/core/catalog"
)

// AppLinkChoice is a librarian's word on whether one of the school's books
// and one of the reading app's books are the same work. It outranks what
// the ISBN and the title and author say, both ways: "same" links books that
// matching misses (a translation, a retitled edition), "not same" parts
// books that matching joins by mistake (two works of one title and author).
type AppLinkChoice struct {
	SchoolID    string
	BookID      string // the school's book
	AppBookID   string // the reading app's book
	Same        bool
	ByAccountID string
	At          time.Time
}

// MaxAppLinkChoicesPerBook bounds a library book's choices, so reading the
// choices of a catalogue page stays small whatever a librarian does.
const MaxAppLinkChoicesPerBook = 20

// Why a library book is linked to the reading app's book.
const (
	LinkedByLibrarian   = "librarian"
	LinkedByISBN        = "isbn"
	LinkedByTitleAuthor = "title_author"
)

// AppLink is the reading app's book that is the same work as a library
// book, and why.
type AppLink struct {
	AppBook catalog.Book
	Reason  string
}

// SameWork says whether the school's book b and the app's book a are one
// work, and why: the school's choice on the pair when it made one, else a
// shared ISBN (in either form), else a shared catalog.WorkKey. choices may
// hold any others; only the pair's counts.
func SameWork(b Book, a catalog.Book, choices []AppLinkChoice) (string, bool) {
	for _, c := range choices {
		if c.SchoolID == b.SchoolID && c.BookID == b.ID && c.AppBookID == a.ID {
			return LinkedByLibrarian, c.Same
		}
	}
	if isbn := ISBN13(b.ISBN); isbn != "" && ISBN13(a.ISBN) == isbn {
		return LinkedByISBN, true
	}
	if key := catalog.WorkKey(b.Title, b.Author); key != "" && catalog.WorkKey(a.Title, a.Author) == key {
		return LinkedByTitleAuthor, true
	}
	return "", false
}

// ResolveAppLink picks the one app book of appBooks that the catalogue
// names as the same work as b: of those SameWork accepts, one the school
// chose (the latest choice), else one sharing an ISBN, else one sharing the
// work key; among several of one kind the lowest id, so the answer does
// not depend on the order the store returned them in. appBooks may hold
// any others: each is checked here, so a caller can pass the union of its
// lookups. An app book reaches the school's shelf through SameWork alone,
// so every edition in the app finds the school's copy.
func ResolveAppLink(b Book, choices []AppLinkChoice, appBooks []catalog.Book) (AppLink, bool) {
	rank := map[string]int{LinkedByLibrarian: 0, LinkedByISBN: 1, LinkedByTitleAuthor: 2}
	chosenAt := map[string]time.Time{}
	for _, c := range choices {
		if c.SchoolID == b.SchoolID && c.BookID == b.ID {
			chosenAt[c.AppBookID] = c.At
		}
	}
	// better reports whether x outranks y.
	better := func(x, y AppLink) bool {
		if rx, ry := rank[x.Reason], rank[y.Reason]; rx != ry {
			return rx < ry
		}
		if tx, ty := chosenAt[x.AppBook.ID], chosenAt[y.AppBook.ID]; x.Reason == LinkedByLibrarian && !tx.Equal(ty) {
			return tx.After(ty)
		}
		return x.AppBook.ID < y.AppBook.ID
	}
	var best AppLink
	found := false
	for _, a := range appBooks {
		why, ok := SameWork(b, a, choices)
		if l := (AppLink{AppBook: a, Reason: why}); ok && (!found || better(l, best)) {
			best, found = l, true
		}
	}
	return best, found
}

// ReadInAppToo returns the loan ids of finished whose book (from books,
// by id) is the same work as one of the app books the same reader
// finished, as SameWork decides: a work read both ways counts once, as
// read in the app. A loan whose book is gone is judged by its own title
// and author. Each book's ISBN and work key are computed once, not once
// per pair: a class's term pairs hundreds of loans with hundreds of books.
func ReadInAppToo(finished []FinishedLoan, books map[string]Book, completed []catalog.Book, choices []AppLinkChoice) map[string]bool {
	out := map[string]bool{}
	if len(finished) == 0 || len(completed) == 0 {
		return out
	}
	type keys struct{ isbn, work string }
	appKeys := make([]keys, len(completed))
	for i, a := range completed {
		appKeys[i] = keys{ISBN13(a.ISBN), catalog.WorkKey(a.Title, a.Author)}
	}
	chosen := map[[2]string]bool{} // library book and app book → same
	for _, c := range choices {
		chosen[[2]string{c.BookID, c.AppBookID}] = c.Same
	}
	for _, f := range finished {
		b, ok := books[f.BookID]
		if !ok {
			b = Book{ID: f.BookID, SchoolID: f.SchoolID, Title: f.Title, Author: f.Author}
		}
		k := keys{ISBN13(b.ISBN), catalog.WorkKey(b.Title, b.Author)}
		for i, a := range completed {
			same, decided := chosen[[2]string{b.ID, a.ID}]
			if !decided {
				same = (k.isbn != "" && k.isbn == appKeys[i].isbn) || (k.work != "" && k.work == appKeys[i].work)
			}
			if same {
				out[f.LoanID] = true
				break
			}
		}
	}
	return out
}
