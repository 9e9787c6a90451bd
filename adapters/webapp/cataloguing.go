package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// isbnLookup is the outcome of the books page's "Look up" form: the
// ISBN as typed and a sentence for the librarian. Found fills the add-book
// form; otherwise the form stays as it was, to be typed in.
type isbnLookup struct {
	ISBN    string
	Found   bool
	Message string
	Invalid bool // the ISBN itself was refused (the field is marked)
}

// lookUpISBN looks up the ISBN the books page was asked for (?isbn=) on
// the school's catalogue server. It returns the add-book form prefilled
// from the record, or nil with the lookup's message when there is none.
// Nothing is stored: the librarian checks the form and adds the book.
func (a *App) lookUpISBN(r *http.Request, school library.School) (*isbnLookup, *formState) {
	isbn, asked := r.URL.Query()["isbn"]
	if !asked || !a.allowed(r, "read", "library:cataloguing") {
		return nil, nil
	}
	typed := strings.TrimSpace(isbn[0])
	l := &isbnLookup{ISBN: typed}
	d, err := a.deps.Library.Cataloguing.Lookup(r.Context(), school.ID, typed)
	if err != nil {
		l.Message = a.messageOf(r, err)
		l.Invalid = errs.KindOf(err) == errs.Invalid
		// The scanned ISBN goes into the form anyway: the librarian types
		// the rest.
		return l, &formState{Values: map[string]string{"isbn": typed}}
	}
	l.Found = true
	l.Message = tr(r, "Found %s on the catalogue server. Check the details below, then add the book.", quote(d.Title))
	values := map[string]string{
		"title": d.Title, "author": d.Author, "isbn": d.ISBN, "publisher": d.Publisher, "genre": d.Genre,
		"call_number": d.CallNumber, "reading_level": d.ReadingLevel, "subjects": strings.Join(d.Subjects, "; "),
	}
	for k, n := range map[string]int{"published_year": d.PublishedYear, "age_min": d.AgeMin, "age_max": d.AgeMax} {
		if n > 0 {
			values[k] = strconv.Itoa(n)
		}
	}
	return l, &formState{Values: values}
}

// withLookedUpSubjects adds the subjects an ISBN lookup put in the add-book
// form (one hidden field, "; " between them): the desk does not edit
// subjects, but a book filled from a record keeps the record's.
func withLookedUpSubjects(d library.BookDetails, form url.Values) library.BookDetails {
	for _, s := range strings.Split(form.Get("subjects"), ";") {
		if s = strings.TrimSpace(s); s != "" {
			d.Subjects = append(d.Subjects, s)
		}
	}
	return d
}
