package webapp

import (
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/library"
)

// wantRow is a title on the student's want-to-read list as their page
// shows it.
type wantRow struct {
	ID, Title, Author      string
	Total, Available, Held int
	Reference              bool
	// OnHold is set when the student has an open hold on the title.
	OnHold bool
}

// Holdable reports whether the student could place a hold on the title:
// a lendable one with no copy on the shelf, that they hold not already.
func (w wantRow) Holdable() bool {
	return !w.Reference && w.Available == 0 && w.Total > 0 && !w.OnHold
}

// ownWants reads the signed-in student's list for their page; nil when
// the student may not keep one.
func (a *App) ownWants(r *http.Request, held map[string]bool) ([]wantRow, bool, error) {
	if !a.allowed(r, "read", "library:ownwants") {
		return nil, false, nil
	}
	list, err := a.deps.Library.WantToRead.List(r.Context())
	if err != nil {
		return nil, false, err
	}
	rows := make([]wantRow, 0, len(list))
	for _, e := range list {
		rows = append(rows, wantRow{ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, Total: e.Total, Available: e.Available,
			Held: e.Holds, Reference: library.BookCategory(e.Book) == library.CategoryReference, OnHold: held[e.Book.ID]})
	}
	return rows, true, nil
}

// changeWant puts a title on the signed-in student's want-to-read list or
// takes it off, from the catalogue or from their own page (the form's
// "from"): the same use cases as PUT and DELETE
// /api/library/student/want-to-read/{book_id}.
func (a *App) changeWant(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := backFrom(school, form, schoolPath(school))
	bookID := strings.TrimSpace(form.Get("book_id"))
	title := strings.TrimSpace(form.Get("title"))
	if title == "" {
		title = tr(r, "the title")
	} else {
		title = quote(title)
	}
	var err error
	var msg string
	switch form.Get("action") {
	case "add":
		var hold *library.ListHold
		hold, err = a.deps.Library.WantToRead.Add(r.Context(), bookID)
		msg = tr(r, "Added %s to your want-to-read list.", title) + listHoldSentence(r, hold)
	case "remove":
		err = a.deps.Library.WantToRead.Remove(r.Context(), bookID)
		msg = tr(r, "Removed %s from your want-to-read list.", title)
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Choose whether to add the title or remove it.")})
		return
	}
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, msg)
}

// listHoldSentence says what adding a title did about a hold, by the
// student's choice, after a space; nothing without one.
func listHoldSentence(r *http.Request, h *library.ListHold) string {
	if h == nil {
		return ""
	}
	switch h.Outcome {
	case library.ListHoldPlaced:
		if h.Position > 0 {
			return " " + tr(r, "A hold was placed for you: no copy is on the shelf now, and you are number %d in the queue.", h.Position)
		}
		return " " + tr(r, "A hold was placed for you: no copy is on the shelf now.")
	case library.ListHoldAlreadyHeld:
		return " " + tr(r, "You already have a hold on it.")
	case library.ListHoldOnShelf:
		return " " + tr(r, "A copy is on the shelf, so no hold was placed.")
	}
	return " " + tr(r, "No hold was placed: %s", h.Message)
}

// chooseListHolds records whether titles the signed-in student adds to
// their want-to-read list place holds: the same use case as PUT
// /api/library/student/reading-list-holds.
func (a *App) chooseListHolds(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school)
	var on bool
	switch strings.TrimSpace(r.PostForm.Get("holds_from_reading_list")) {
	case "on":
		on = true
	case "off":
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Choose whether adding a title to your list places a hold.")})
		return
	}
	on, err := a.deps.Library.Holds.SetReadingListHolds(r.Context(), on)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "Titles you add to your want-to-read list now place a hold when no copy is on the shelf.")
	if !on {
		msg = tr(r, "Titles you add to your want-to-read list no longer place a hold by themselves.")
	}
	a.succeeded(w, r, back, msg)
}
