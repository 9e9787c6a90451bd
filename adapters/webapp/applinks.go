package webapp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
)

// The reading-app link of a library book: which book of the reading app is
// the same work, and the librarian's word where matching is wrong or
// silent. The same use case as /api/library/books/{id}/app-link.

type appLinkView struct {
	base
	Base       string
	Book       library.Book
	Linked     *appCandidateRow
	Candidates []appCandidateRow
	// CanChoose is set for those who may change the link (librarians).
	CanChoose bool
}

type appCandidateRow struct {
	ID, Title, Author, ISBN string
	// Why says what makes the two one work, or what matching says of them.
	Why    string
	Choice string // collection.ChoiceSame, ChoiceNotSame or ""
}

// linkedByText says why two books are linked, for the desk, in the
// page's language.
func linkedByText(r *http.Request, reason string) string {
	switch reason {
	case library.LinkedByLibrarian:
		return tr(r, "linked by a librarian")
	case library.LinkedByISBN:
		return tr(r, "same ISBN")
	case library.LinkedByTitleAuthor:
		return tr(r, "same title and author")
	}
	return tr(r, "found by its title's words")
}

func (a *App) appLinkPage(w http.ResponseWriter, r *http.Request, school library.School) {
	v, err := a.deps.Library.AppLinks.View(r.Context(), school.ID, strings.TrimSpace(r.URL.Query().Get("book_id")))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page := appLinkView{base: a.schoolBase(r, school, tr(r, "Reading app link of %s", v.Book.Title), "books"), Base: schoolPath(school), Book: v.Book,
		CanChoose: a.allowed(r, "update", "library:books")}
	page.Flash = a.takeFlash(w, r)
	if v.Link != nil {
		page.Linked = &appCandidateRow{ID: v.Link.AppBook.ID, Title: v.Link.AppBook.Title, Author: v.Link.AppBook.Author, ISBN: v.Link.AppBook.ISBN,
			Why: linkedByText(r, v.Link.Reason)}
	}
	for _, c := range v.Candidates {
		page.Candidates = append(page.Candidates, appCandidateRow{ID: c.Book.ID, Title: c.Book.Title, Author: c.Book.Author, ISBN: c.Book.ISBN,
			Why: linkedByText(r, c.Match), Choice: c.Choice})
	}
	a.render(w, r, http.StatusOK, "applink", page)
}

// chooseAppLink stores the librarian's word on a pair (choice same or
// not_same) or forgets it (forget), and goes back to the book's page.
func (a *App) chooseAppLink(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	bookID, appID := form.Get("book_id"), form.Get("app_book_id")
	back := schoolPath(school) + "/books/app-link?book_id=" + url.QueryEscape(bookID)
	var (
		v   collection.AppLinkView
		err error
		// done says what was done to the book of the title.
		done func(title string) string
	)
	switch form.Get("choice") {
	case collection.ChoiceSame:
		v, err = a.deps.Library.AppLinks.Choose(r.Context(), school.ID, bookID, appID, true)
		done = func(title string) string {
			return tr(r, "%s is now linked to the reading app's book you chose.", title)
		}
	case collection.ChoiceNotSame:
		v, err = a.deps.Library.AppLinks.Choose(r.Context(), school.ID, bookID, appID, false)
		done = func(title string) string {
			return tr(r, "%s will not be linked to that book of the reading app.", title)
		}
	case "forget":
		v, err = a.deps.Library.AppLinks.Forget(r.Context(), school.ID, bookID, appID)
		done = func(title string) string { return tr(r, "%s is linked by matching again.", title) }
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Choose whether the two books are the same.")})
		return
	}
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, done(quote(v.Book.Title)))
}
