package webapp

import (
	"net/http"
	"slices"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
)

// picksView is the student's "Books for you" page.
type picksView struct {
	base
	Base  string
	Picks []pickRow
}

// pickRow is one recommendation as the page shows it.
type pickRow struct {
	BookID, Title, Author, Reason string
	// Where says where the title is: on the shelf (and at which call
	// number), all out, or in the reading app only.
	Where string
	// CanHold offers "Place a hold"; InApp names the app book to read now.
	CanHold bool
	InApp   string
}

// picksShown is how many picks the page lists.
const picksShown = 12

// picks shows the signed-in student the books recommended to them: the
// same use case as GET /api/library/student/recommendations.
func (a *App) picks(w http.ResponseWriter, r *http.Request, school library.School) {
	picks, err := a.deps.Library.Recommendations.ForStudent(r.Context(), picksShown)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := picksView{base: a.schoolBase(r, school, "Books for you", "picks"), Base: schoolPath(school)}
	v.Flash = a.takeFlash(w, r)
	canHold := a.allowed(r, "create", "library:holds")
	for _, p := range picks {
		row := pickRow{Reason: p.Why.In(i18n.From(r.Context()))}
		if e := p.Entry; e != nil {
			row.BookID, row.Title, row.Author = e.Book.ID, e.Book.Title, e.Book.Author
			switch {
			case e.Available > 0 && e.Book.CallNumber != "":
				row.Where = tr(r, "On the shelf now, at %s.", e.Book.CallNumber)
			case e.Available > 0:
				row.Where = tr(r, "On the shelf now.")
			default:
				row.Where = tr(r, "Every copy is out.")
			}
			row.CanHold = canHold && slices.Contains(p.Actions, collection.ActionPlaceHold)
		} else if p.App != nil {
			row.Title, row.Author, row.Where = p.App.Title, p.App.Author, tr(r, "Only in the reading app.")
		}
		if p.ReadNow != nil {
			row.InApp = p.ReadNow.Title
		}
		v.Picks = append(v.Picks, row)
	}
	a.render(w, r, http.StatusOK, "picks", v)
}
