package webapp

import (
	"net/http"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/selfcheck"
	"github.com/readinglibrary/service/core/service/usecase"
)

// offlineView is the Offline scans page: the desk's scans made while the
// server could not be reached that the rules refused, each with a retry
// (after the librarian fixed what was wrong) and a dismissal.
type offlineView struct {
	base
	Base      string
	Scans     []offlineRow
	Total     int
	Pages     pager
	CanSettle bool
}

type offlineRow struct {
	ID, Kind, Code, Student, Scanned, UploadedBy, Reason, Message string
}

func (a *App) offlinePage(w http.ResponseWriter, r *http.Request, school library.School) {
	_, ops, total, err := a.deps.Library.SelfCheck.OfflineConflicts(r.Context(), school.ID, usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := offlineView{base: a.schoolBase(r, school, "Offline scans", "offline"), Base: schoolPath(school), Total: total,
		Pages:     newPager("offline", tr(r, "Pages of offline scans"), schoolPath(school)+"/offline", "", pageParam(r), pageSize, total),
		CanSettle: a.allowed(r, "update", "library:offline")}
	v.Flash = a.takeFlash(w, r)
	loc := school.Settings.Location()
	for _, op := range ops {
		// The scan, named before its copy's code.
		kind := tr(r, "Check-out of")
		if op.Kind == library.OfflineReturn {
			kind = tr(r, "Return of")
		}
		v.Scans = append(v.Scans, offlineRow{ID: op.ID, Kind: kind, Code: op.Code, Student: op.Card,
			Scanned: op.ScannedAt.In(loc).Format("2006-01-02 15:04"), UploadedBy: op.UploadedBy, Reason: op.Reason, Message: op.Message})
	}
	a.render(w, r, http.StatusOK, "offline", v)
}

func (a *App) settleOffline(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/offline"
	action := r.PostForm.Get("action")
	res, err := a.deps.Library.SelfCheck.SettleOffline(r.Context(), school.ID, r.PostForm.Get("scan_id"), action)
	if a.refusedTo(w, r, back, err) {
		return
	}
	switch {
	case action == selfcheck.SettleDismiss:
		a.succeeded(w, r, back, tr(r, "Dismissed the scan of %s.", res.Op.Code))
	case res.Op.Status == library.OfflineApplied:
		a.succeeded(w, r, back, tr(r, "Done: %s %s", res.Op.Code, res.Op.Message))
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "%s is still refused: %s", res.Op.Code, res.Op.Message)})
	}
}
