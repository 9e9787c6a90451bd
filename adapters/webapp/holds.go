package webapp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// Holds at the desk: a title's queue, where the librarian places a hold for
// a student and cancels one, and the student's own holds on their page.

type holdRow struct {
	ID, Title, Author, Student, Status, Placed, ReadyUntil, CopyCode string
	BookID                                                           string
	// Position is a waiting hold's place in its title's queue, on the
	// student's own pages; 0 elsewhere.
	Position int
}

// StatusIn names the hold's state in the page's language.
func (h holdRow) StatusIn(lang i18n.Lang) string { return holdStatus(lang, h.Status) }

// holdStatus names a hold's state (library.HoldReady...) in lang: the
// pages' holdStatus.
func holdStatus(lang i18n.Lang, status string) string {
	switch status {
	case library.HoldReady:
		return lang.T("Ready to collect")
	case library.HoldWaiting:
		return lang.T("Waiting")
	case library.HoldFulfilled:
		return lang.T("Collected")
	case library.HoldCancelled:
		return lang.T("Cancelled")
	}
	return lang.T("Expired")
}

// Open reports whether the hold may still be cancelled.
func (h holdRow) Open() bool { return h.Status == library.HoldWaiting || h.Status == library.HoldReady }

func toHoldRow(v circulation.HoldView) holdRow {
	row := holdRow{ID: v.Hold.ID, BookID: v.Hold.BookID, Title: v.Book.Title, Author: v.Book.Author, Student: v.StudentName, Status: v.Status,
		Placed: v.Hold.PlacedAt.UTC().Format("2006-01-02"), CopyCode: v.CopyCode, Position: v.Position}
	if v.Trap != nil {
		row.ReadyUntil = v.Trap.ExpiresAt.UTC().Format("2006-01-02")
	}
	return row
}

type holdsView struct {
	base
	Base      string
	Book      library.Book
	Holds     []holdRow
	Pages     pager
	CanPlace  bool
	CanCancel bool
	Student   string // the place form's value after a refusal
}

// holdsPage is a title's queue: GET .../holds?book_id=.
func (a *App) holdsPage(w http.ResponseWriter, r *http.Request, school library.School) {
	bookID := r.URL.Query().Get("book_id")
	res, err := a.deps.Library.Holds.Queue(r.Context(), school.ID, circulation.HoldFilter{BookID: bookID}, usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	base, title := schoolPath(school), tr(r, "Holds")
	if res.Book.ID != "" {
		title = tr(r, "Holds on %s", res.Book.Title)
	}
	v := holdsView{base: a.schoolBase(r, school, title, "holds"), Base: base, Book: res.Book,
		Pages:    newPager("holds", tr(r, "Pages of holds"), base+"/holds", "", res.Page, res.Limit, res.Total),
		CanPlace: a.allowed(r, "create", "library:holds"), CanCancel: a.allowed(r, "delete", "library:holds")}
	if res.Book.ID != "" {
		// The page links keep the title's queue.
		for _, link := range []*string{&v.Pages.Prev, &v.Pages.Next} {
			if *link != "" {
				*link = strings.Replace(*link, "?", "?book_id="+url.QueryEscape(res.Book.ID)+"&", 1)
			}
		}
	}
	v.Flash = a.takeFlash(w, r)
	if v.Flash != nil {
		v.Student = v.Flash.Values["student"]
	}
	for _, h := range res.Holds {
		v.Holds = append(v.Holds, toHoldRow(h))
	}
	a.render(w, r, http.StatusOK, "holds", v)
}

// placeHold places a hold on a title for the student typed as a number or a
// name (one match, or an exact number or email).
// placeOwnHold places a hold for the signed-in student from the catalogue
// and goes back to the same search, saying their place in the queue.
func (a *App) placeOwnHold(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := backFrom(school, form, catalogPath(school, form.Get("search")))
	v, err := a.deps.Library.Holds.Place(r.Context(), circulation.HoldInput{SchoolID: school.ID, BookID: strings.TrimSpace(form.Get("book_id"))})
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "Hold placed on %s: you are number %d in the queue.", quote(v.Book.Title), v.Position)
	if v.Status == library.HoldReady {
		msg = tr(r, "Hold placed on %s: a copy is waiting for you at the desk.", quote(v.Book.Title))
	}
	a.succeeded(w, r, back, msg)
}

func (a *App) placeHold(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	bookID := strings.TrimSpace(form.Get("book_id"))
	query := strings.TrimSpace(form.Get("student"))
	back := schoolPath(school) + "/holds?book_id=" + url.QueryEscape(bookID)
	fail := func(msg string) {
		a.redirect(w, r, back, flash{Kind: "error", Message: msg, Values: map[string]string{"student": query}})
	}
	if query == "" {
		fail(tr(r, "Type the student's number or name."))
		return
	}
	res, err := a.deps.Library.Students.Search(r.Context(), school.ID, "", usecase.ListQuery{Page: 1, Limit: usecase.MaxListLimit, Search: query})
	if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	student := pickStudent(res.Students, query)
	switch {
	case student == nil && len(res.Students) == 0:
		fail(tr(r, "No student matches %s.", quote(query)))
		return
	case student == nil:
		fail(tr(r, "%d students match %s: type the student number.", len(res.Students), quote(query)))
		return
	}
	v, err := a.deps.Library.Holds.Place(r.Context(), circulation.HoldInput{SchoolID: school.ID, BookID: bookID, StudentID: student.ID})
	if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	msg := tr(r, "Hold placed for %s on %s.", student.Name, quote(v.Book.Title))
	if v.Status == library.HoldReady {
		msg += " " + tr(r, "Copy %s is put aside for them.", v.CopyCode)
	}
	a.succeeded(w, r, back, msg)
}

// cancelHold cancels a hold: a student their own (back to their page), a
// librarian any of the school's (back to the title's queue).
func (a *App) cancelHold(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school)
	if user.PrincipalFrom(r.Context()).Role != user.RoleStudent {
		back += "/holds"
		if bookID := strings.TrimSpace(form.Get("book_id")); bookID != "" {
			back += "?book_id=" + url.QueryEscape(bookID)
		}
	}
	v, err := a.deps.Library.Holds.Cancel(r.Context(), school.ID, strings.TrimSpace(form.Get("hold_id")))
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Cancelled the hold on %s.", quote(v.Book.Title)))
}
