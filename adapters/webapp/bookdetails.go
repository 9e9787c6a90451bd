package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// detailKeys are the form fields of a book's catalogue details at the
// desk: the ones a librarian shelves and lends by. Subjects come from
// catalogue records, not from the desk.
var detailKeys = []string{"call_number", "genre", "reading_level", "age_min", "age_max", "publisher", "published_year"}

// detailsRow is a book's details as the books page shows and edits them.
type detailsRow struct {
	CallNumber, Genre, ReadingLevel, Publisher string
	AgeMin, AgeMax, Year                       string // "" when none
	// Summary is the one line under a book's title, in the page's
	// language (summary).
	Summary string
}

func toDetailsRow(r *http.Request, d library.BookDetails) detailsRow {
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	row := detailsRow{CallNumber: d.CallNumber, Genre: d.Genre, ReadingLevel: d.ReadingLevel, Publisher: d.Publisher,
		AgeMin: num(d.AgeMin), AgeMax: num(d.AgeMax), Year: num(d.PublishedYear)}
	row.Summary = row.summary(r)
	return row
}

// summary is the one line under a book's title: call number, genre,
// reading level and ages, those it has.
func (d detailsRow) summary(r *http.Request) string {
	var parts []string
	for _, p := range []string{d.CallNumber, d.Genre} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if d.ReadingLevel != "" {
		parts = append(parts, tr(r, "level %s", d.ReadingLevel))
	}
	switch {
	case d.AgeMin != "" && d.AgeMax != "":
		parts = append(parts, tr(r, "ages %s–%s", d.AgeMin, d.AgeMax))
	case d.AgeMin != "":
		parts = append(parts, tr(r, "ages %s+", d.AgeMin))
	case d.AgeMax != "":
		parts = append(parts, tr(r, "ages up to %s", d.AgeMax))
	}
	return strings.Join(parts, " · ")
}

// detailsFromForm reads the desk's detail fields: it returns the change
// they make to a book's details (subjects are kept), or the refusal of a
// number that is no number, before anything is stored. An empty number is
// none.
func detailsFromForm(form url.Values) (func(library.BookDetails) library.BookDetails, error) {
	fields := errs.FieldErrors{}
	nums := map[string]int{}
	for _, key := range []string{"age_min", "age_max", "published_year"} {
		n, err := atoi(form, key, 0)
		if err != nil {
			fields.Add(key, "must be a whole number")
		}
		nums[key] = n
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	return func(d library.BookDetails) library.BookDetails {
		d.CallNumber, d.Genre, d.ReadingLevel, d.Publisher = form.Get("call_number"), form.Get("genre"), form.Get("reading_level"), form.Get("publisher")
		d.AgeMin, d.AgeMax, d.PublishedYear = nums["age_min"], nums["age_max"], nums["published_year"]
		return d
	}, nil
}

// setBookDetails changes a book's catalogue details from the books page:
// the same use case as PATCH /api/library/books/{id}.
func (a *App) setBookDetails(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/books"
	if q := form.Get("back_search"); q != "" {
		back += "?search=" + url.QueryEscape(q)
	}
	change, err := detailsFromForm(form)
	var b library.Book
	if err == nil {
		b, err = a.deps.Library.Holdings.SetBookDetails(r.Context(), school.ID, form.Get("book_id"), change)
	}
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Saved the details of %s.", quote(b.Title)))
}
