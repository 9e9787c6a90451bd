package webapp

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- the audit log: who changed what, filtered by person, action and
// dates, a page at a time, with a CSV download of what the filter selects
// -----

type auditView struct {
	base
	Base    string
	Form    *formState
	Actions []library.AuditAction
	Entries []auditRow
	// Problems are the filter's refused fields, in field order.
	Problems []string
	// Next is the next page's address, CSV the download's; "" for none.
	Next, CSV string
	Zone      string
}

// auditRow is one entry as the page shows it: the time in the school's
// zone.
type auditRow struct {
	library.AuditEntry
	When string
}

func (a *App) auditPage(w http.ResponseWriter, r *http.Request, school library.School) {
	q := r.URL.Query()
	f := usecase.AuditFilter{School: school.ID, Actor: strings.TrimSpace(q.Get("actor")), Action: q.Get("action"),
		From: q.Get("from"), To: q.Get("to"), Cursor: q.Get("cursor"), Limit: library.DefaultAuditPage}
	v := auditView{base: a.schoolBase(r, school, "Audit log", "audit"), Base: schoolPath(school), Actions: library.AuditActions,
		Zone: school.Settings.Zone(),
		Form: &formState{Values: map[string]string{"actor": f.Actor, "action": f.Action, "from": f.From, "to": f.To}}}
	page, err := a.deps.Library.Audit.Page(r.Context(), f)
	switch {
	case errs.Is(err, errs.Invalid):
		// A filter the log cannot take: say which parts, show nothing.
		v.Form.Fields = fieldErrors(r, err)
		for field, msg := range v.Form.Fields {
			v.Problems = append(v.Problems, auditField(r, field)+" "+msg)
		}
		sort.Strings(v.Problems)
		a.render(w, r, http.StatusUnprocessableEntity, "audit", v)
		return
	case err != nil:
		a.fail(w, r, err)
		return
	}
	loc := school.Settings.Location()
	for _, e := range page.Entries {
		v.Entries = append(v.Entries, auditRow{AuditEntry: e, When: e.At.In(loc).Format("2006-01-02 15:04:05")})
	}
	keep := url.Values{}
	for _, k := range []string{"actor", "action", "from", "to"} {
		if val := v.Form.V(k); val != "" {
			keep.Set(k, val)
		}
	}
	if page.NextCursor != "" {
		next := url.Values{"cursor": {page.NextCursor}}
		for k, vs := range keep {
			next[k] = vs
		}
		v.Next = v.Base + "/audit?" + next.Encode()
	}
	keep.Set("schoolId", school.ID)
	keep.Set("format", "csv")
	v.CSV = "/api/library/audit?" + keep.Encode()
	a.render(w, r, http.StatusOK, "audit", v)
}

// auditField names a field of the filter in a refusal, in the page's
// language.
func auditField(r *http.Request, field string) string {
	switch field {
	case "actor":
		return tr(r, "actor")
	case "action":
		return tr(r, "action")
	case "from":
		return tr(r, "from")
	case "to":
		return tr(r, "to")
	}
	return field
}
