package webapp

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// reviewRow is a review as the pages show it; the templates escape its
// text like every other value.
type reviewRow struct {
	ID, BookID, Title, Author, Student, Text, Status, Written string
	Rating, Revision                                          int
}

func toReviewRow(v collection.ReviewView) reviewRow {
	rv := v.Review
	return reviewRow{ID: rv.ID, BookID: rv.BookID, Title: v.Book.Title, Author: v.Book.Author, Student: v.StudentName, Text: rv.Text,
		Status: rv.Status, Written: rv.UpdatedAt.UTC().Format("2006-01-02"), Rating: rv.Rating, Revision: rv.Revision}
}

// Stars spells the rating for sighted readers; the pages give screen
// readers "n out of 5" beside it.
func (r reviewRow) Stars() string { return stars(r.Rating) }

func stars(n int) string {
	return strings.Repeat("★", n) + strings.Repeat("☆", library.MaxRating-n)
}

// ----- the desk's moderation -----

type reviewsView struct {
	base
	Base      string
	Status    string
	Tabs      []reviewTab
	Reviews   []reviewRow
	Pages     pager
	CanDecide bool
}

type reviewTab struct {
	Status, Label, Href string
	Current             bool
}

// reviewsPage is the desk's list of the school's reviews in one state, the
// moderation queue first: the same use case as GET /api/library/reviews.
func (a *App) reviewsPage(w http.ResponseWriter, r *http.Request, school library.School) {
	status := r.URL.Query().Get("status")
	if status == "" {
		status = library.ReviewPending
	}
	if !slices.Contains(library.ReviewStatuses, status) {
		a.fail(w, r, errs.InvalidField("status", "must be pending, approved or hidden"))
		return
	}
	res, err := a.deps.Library.Reviews.Queue(r.Context(), school.ID, status, usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	root := schoolPath(school)
	v := reviewsView{base: a.schoolBase(r, school, "Reviews", "reviews"), Base: root, Status: status,
		CanDecide: a.allowed(r, "moderate", "library:reviews"),
		Pages:     newFilteredPager("reviews", tr(r, "Pages of reviews"), root+"/reviews", url.Values{"status": {status}}, res.Page, res.Limit, res.Total)}
	v.Flash = a.takeFlash(w, r)
	for _, st := range library.ReviewStatuses {
		label := map[string]string{library.ReviewPending: tr(r, "Waiting"), library.ReviewApproved: tr(r, "In the catalogue"), library.ReviewHidden: tr(r, "Hidden")}[st]
		v.Tabs = append(v.Tabs, reviewTab{Status: st, Label: label, Href: root + "/reviews?status=" + st, Current: st == status})
	}
	for _, rv := range res.Reviews {
		v.Reviews = append(v.Reviews, toReviewRow(rv))
	}
	a.render(w, r, http.StatusOK, "reviews", v)
}

// decideReview approves or hides a review as of the revision the page
// showed: the same use case as PATCH /api/library/reviews/{id}.
func (a *App) decideReview(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	from := form.Get("from")
	if !slices.Contains(library.ReviewStatuses, from) {
		from = library.ReviewPending
	}
	back := schoolPath(school) + "/reviews?status=" + from
	revision, err := strconv.Atoi(form.Get("revision"))
	if err != nil {
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "The form lacks the review's revision; reload the page.")})
		return
	}
	status := form.Get("status")
	v, err := a.deps.Library.Reviews.Decide(r.Context(), school.ID, strings.TrimSpace(form.Get("review_id")), revision, status)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "The review of %s is in the catalogue.", quote(v.Book.Title))
	if status == library.ReviewHidden {
		msg = tr(r, "The review of %s is hidden.", quote(v.Book.Title))
	}
	a.succeeded(w, r, back, msg)
}

// ----- the student's own review -----

type reviewFormView struct {
	base
	Base string
	Book library.Book
	// Mine is the student's review of the title, if they wrote one.
	Mine *reviewRow
	Form *formState
	// Ratings are the choices, 1 to 5.
	Ratings []int
}

// reviewForm shows the signed-in student the form for their review of a
// title, filled with the review they wrote.
func (a *App) reviewForm(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderReviewForm(w, r, school, http.StatusOK, strings.TrimSpace(r.URL.Query().Get("book_id")), nil)
}

func (a *App) renderReviewForm(w http.ResponseWriter, r *http.Request, school library.School, status int, bookID string, form *formState) {
	entry, err := a.deps.Library.Holdings.Book(r.Context(), school.ID, bookID)
	book := entry.Book
	if err != nil {
		a.fail(w, r, err)
		return
	}
	mine, err := a.deps.Library.Reviews.Mine(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := reviewFormView{base: a.schoolBase(r, school, tr(r, "Review %s", book.Title), "history"), Base: schoolPath(school), Book: book, Form: form,
		Ratings: []int{1, 2, 3, 4, 5}}
	for _, m := range mine {
		if m.Review.BookID == book.ID {
			row := toReviewRow(m)
			v.Mine = &row
		}
	}
	if form == nil {
		v.Flash = a.takeFlash(w, r)
		v.Form = &formState{Values: map[string]string{}}
		if v.Mine != nil {
			v.Form.Values["rating"], v.Form.Values["text"] = strconv.Itoa(v.Mine.Rating), v.Mine.Text
		}
	}
	a.render(w, r, status, "review", v)
}

// saveReview writes or withdraws the signed-in student's review: the same
// use cases as PUT and DELETE /api/library/student/reviews/{book_id}.
func (a *App) saveReview(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	bookID := strings.TrimSpace(form.Get("book_id"))
	back := schoolPath(school) + "/review?book_id=" + url.QueryEscape(bookID)
	if form.Get("action") == "withdraw" {
		if err := a.deps.Library.Reviews.Withdraw(r.Context(), bookID); a.refusedTo(w, r, back, err) {
			return
		}
		a.succeeded(w, r, back, tr(r, "Your review is withdrawn."))
		return
	}
	rating, err := strconv.Atoi(form.Get("rating"))
	if err != nil {
		rating = 0 // the use case names the field
	}
	v, err := a.deps.Library.Reviews.Write(r.Context(), bookID, library.ReviewDraft{Rating: rating, Text: form.Get("text")})
	if err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.Invalid {
			st := a.refused(r, err, form, "rating", "text")
			a.renderReviewForm(w, r, school, a.statusFor(err), bookID, st)
			return
		}
		a.refusedTo(w, r, back, err)
		return
	}
	a.succeeded(w, r, back, tr(r, "Thank you: your review of %s is saved. The librarian reads it before it shows in the catalogue.", quote(v.Book.Title)))
}

// ----- a title's page in the catalogue -----

type titleView struct {
	base
	Book    library.Book
	Row     catalogRow // availability, the student's hold and list, the cover
	Rating  string     // "4.5 out of 5 from 2 reviews", or "" without any
	Reviews []reviewRow
	Pages   pager
	// CanHold and CanWant are set for a student of the school, as on the
	// catalogue page.
	CanHold, CanWant bool
}

// titlePage is one title of the catalogue for anyone: its cover, details
// and availability, its approved reviews without names, a page at a time,
// and for a signed-in student of the school their hold with its place in
// the queue, or a button to place one, and their want-to-read list. The
// same use cases as GET /api/library/catalog/{domain}/books/{book_id} and
// its /reviews.
func (a *App) titlePage(w http.ResponseWriter, r *http.Request) {
	domain := mux.Vars(r)["domain"]
	bookID := strings.TrimSpace(r.URL.Query().Get("book_id"))
	title, err := a.deps.Library.Catalog.Title(r.Context(), domain, bookID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	school, book := title.School, title.Entry.Book
	res, err := a.deps.Library.Reviews.Approved(r.Context(), school, book, usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	marks, err := a.studentMarks(r, school)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	covers, err := a.coverPaths(r, school, []collection.CatalogEntry{title.Entry})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := titleView{Book: book, Row: marks.row(title.Entry, covers[book.ID]), Rating: ratingText(i18n.From(r.Context()), title.Entry.Rating), CanHold: marks.canHold, CanWant: marks.canWant,
		Pages: newFilteredPager("reviews", tr(r, "Pages of reviews"), "/library/"+school.Domain+"/catalog/title", url.Values{"book_id": {bookID}}, res.Page, res.Limit, res.Total)}
	v.base = a.newBase(r, book.Title, "catalog")
	if !user.PrincipalFrom(r.Context()).IsAnonymous() {
		if own, err := a.deps.Library.Schools.ByDomain(r.Context(), school.Domain); err == nil {
			v.base = a.schoolBase(r, own, book.Title, "catalog")
		}
	}
	v.Flash = a.takeFlash(w, r)
	v.School = &library.School{ID: school.ID, Name: school.Name, Domain: school.Domain}
	for _, rv := range res.Reviews {
		v.Reviews = append(v.Reviews, toReviewRow(rv))
	}
	a.render(w, r, http.StatusOK, "title", v)
}

// ratingText says a title's rating in words in lang, "" without reviews.
func ratingText(lang i18n.Lang, s library.RatingSummary) string {
	switch s.Count {
	case 0:
		return ""
	case 1:
		return lang.T("%.1f out of 5 from 1 review", s.Average())
	}
	return lang.T("%.1f out of 5 from %d reviews", s.Average(), s.Count)
}
