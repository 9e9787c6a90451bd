package webapp

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

// rosterView is the Roster page: sync the students from the simple CSV
// (check first, then apply), the year-end rollover (check first, then
// run), and the leavers who still hold books.
type rosterView struct {
	base
	Base        string
	CanSync     bool
	CanRollover bool
	// The sync form, and its report once checked.
	CSV  string
	Full bool
	// ZipB64 carries a checked OneRoster zip to the apply form.
	ZipB64    string
	Report    *library.RosterReport
	SyncErr   string
	SyncRows  []lineProblem
	Rollover  *library.RolloverPlan
	Year      string
	Leaving   string
	RollErr   string
	Leavers   []leaverRow
	LeaversOK bool
	// Job is a sync running in the background (?job=): the page follows
	// it, reloading while it runs.
	Job *service.ImportJobStatus
}

type leaverRow struct {
	ID, Name, Number, Grade, Homeroom string
	Books                             []string
}

func (a *App) rosterPage(w http.ResponseWriter, r *http.Request, school library.School) {
	v := rosterView{}
	v.Flash = a.takeFlash(w, r)
	if id := r.URL.Query().Get("job"); id != "" {
		st, err := a.deps.Library.Jobs.Get(r.Context(), school.ID, id)
		if err == nil && st.Job.Kind != library.JobKindRosterSync {
			err = library.ErrImportJobNotFound()
		}
		if err != nil {
			v.SyncErr = a.messageOf(r, err)
			a.renderRoster(w, r, school, a.statusFor(err), v)
			return
		}
		v.Job = &st
	}
	a.renderRoster(w, r, school, http.StatusOK, v)
}

// syncStarted follows a sync the service runs as a job: the roster page
// shows its state.
func (a *App) syncStarted(w http.ResponseWriter, r *http.Request, school library.School, job library.ImportJob) {
	http.Redirect(w, r, schoolPath(school)+"/roster?job="+url.QueryEscape(job.ID), http.StatusSeeOther)
}

func (a *App) renderRoster(w http.ResponseWriter, r *http.Request, school library.School, status int, v rosterView) {
	leavers, err := a.deps.Library.Students.Leavers(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	fl := v.Flash
	v.base = a.schoolBase(r, school, "Roster", "roster")
	v.Flash = fl
	v.Base = schoolPath(school)
	v.CanSync = a.allowed(r, "sync", "library:students")
	v.CanRollover = a.allowed(r, "rollover", "library:students")
	if v.Job != nil && v.Job.Job.State == library.ImportJobRunning {
		v.Refresh = jobRefreshSeconds
	}
	for _, l := range leavers {
		row := leaverRow{ID: l.Student.ID, Name: l.Student.Name, Number: l.Student.StudentNumber, Grade: l.Student.Grade, Homeroom: l.Student.Homeroom}
		for _, ln := range l.Loans {
			row.Books = append(row.Books, fmt.Sprintf("%s (copy %s, due %s)", ln.BookTitle, ln.CopyCode, ln.DueAt))
		}
		v.Leavers = append(v.Leavers, row)
	}
	a.render(w, r, status, "roster", v)
}

// syncRoster is the sync of a pasted CSV: its dry run shows the report
// and a form to apply the same file, which applies it all or nothing.
func (a *App) syncRoster(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	form := r.PostForm
	v := rosterView{CSV: form.Get("csv"), Full: form.Get("full") == "on"}
	var (
		rep library.RosterReport
		job library.ImportJob
		err error
	)
	if strings.TrimSpace(v.CSV) == "" {
		err = errs.InvalidField("csv", "is empty: paste the CSV file or choose it")
	} else {
		rep, job, err = a.deps.Library.Students.Sync(r.Context(), school.ID,
			service.SyncInput{RosterUpload: service.RosterUpload{CSV: []byte(v.CSV)}, Full: v.Full, DryRun: dryRun})
	}
	if err == nil && job.ID != "" {
		a.syncStarted(w, r, school, job)
		return
	}
	if err != nil {
		a.refuseSync(w, r, school, v, err)
		return
	}
	if dryRun {
		v.Report = &rep
		a.renderRoster(w, r, school, http.StatusOK, v)
		return
	}
	a.redirect(w, r, schoolPath(school)+"/roster", syncedFlash(rep))
}

// rollover moves the students up a year; its dry run shows the plan.
func (a *App) rollover(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	form := r.PostForm
	v := rosterView{Year: strings.TrimSpace(form.Get("school_year")), Leaving: strings.TrimSpace(form.Get("leaving_grade"))}
	plan, err := a.deps.Library.Students.Rollover(r.Context(), school.ID,
		service.RolloverInput{SchoolYear: v.Year, LeavingGrade: v.Leaving, DryRun: dryRun})
	if err != nil {
		v.RollErr = a.messageOf(r, err)
		for f, m := range fieldErrors(err) {
			v.RollErr = fmt.Sprintf("%s %s.", strings.ReplaceAll(f, "_", " "), m)
		}
		a.renderRoster(w, r, school, a.statusFor(err), v)
		return
	}
	if dryRun {
		v.Rollover = &plan
		a.renderRoster(w, r, school, http.StatusOK, v)
		return
	}
	a.redirect(w, r, schoolPath(school)+"/roster", flash{Kind: "success", Message: fmt.Sprintf(
		"Rolled over %s: %d moved up, %d left (%s), %d not read.", plan.SchoolYear, len(plan.Promoted), len(plan.Leaving), plan.LeavingGrade, len(plan.Unreadable))})
}

// syncOneRoster checks a OneRoster 1.1 zip chosen at the desk (the dry
// run), or applies the zip the check carried (base64 in the apply form),
// re-read and re-checked, all or nothing.
func (a *App) syncOneRoster(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	// base64 makes the carried zip a third larger than the cap.
	r.Body = http.MaxBytesReader(w, r.Body, library.MaxRosterBytes*3/2)
	v := rosterView{}
	zipped, err := readDeskZip(r, dryRun)
	if err == nil {
		v.Full = r.FormValue("full") == "on"
		var (
			rep library.RosterReport
			job library.ImportJob
		)
		rep, job, err = a.deps.Library.Students.Sync(r.Context(), school.ID,
			service.SyncInput{RosterUpload: service.RosterUpload{Zip: zipped}, Full: v.Full, DryRun: dryRun})
		if err == nil && job.ID != "" {
			a.syncStarted(w, r, school, job)
			return
		}
		if err == nil && !dryRun {
			a.redirect(w, r, schoolPath(school)+"/roster", syncedFlash(rep))
			return
		}
		v.Report, v.ZipB64 = &rep, base64.StdEncoding.EncodeToString(zipped)
	}
	if err != nil {
		v.Report, v.ZipB64 = nil, ""
		a.refuseSync(w, r, school, v, err)
		return
	}
	a.renderRoster(w, r, school, http.StatusOK, v)
}

// refuseSync shows the roster page again with a refused sync's message,
// its problem lines and the report the refusal carries.
func (a *App) refuseSync(w http.ResponseWriter, r *http.Request, school library.School, v rosterView, err error) {
	v.SyncErr, v.SyncRows = a.messageOf(r, err), lineProblems(err)
	if e, ok := errs.As(err); ok {
		if report, ok := e.Details["report"].(library.RosterReport); ok {
			v.Report = &report
		}
	}
	a.renderRoster(w, r, school, a.statusFor(err), v)
}

func syncedFlash(rep library.RosterReport) flash {
	return flash{Kind: "success", Message: fmt.Sprintf(
		"Roster synced: %d added, %d changed, %d made inactive.", len(rep.Added), len(rep.Changed), len(rep.Deactivated))}
}

// readDeskZip reads the zip of a OneRoster form: the chosen file for a
// check, the carried base64 for the apply.
func readDeskZip(r *http.Request, fromFile bool) ([]byte, error) {
	if err := r.ParseMultipartForm(library.MaxRosterBytes); err != nil {
		return nil, errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The roster is larger than 8 MiB; sync it in parts.")
	}
	if !fromFile {
		b, err := base64.StdEncoding.DecodeString(r.FormValue("zip"))
		if err != nil || len(b) == 0 {
			return nil, errs.InvalidField("zip", "is missing: check the roster again")
		}
		return b, nil
	}
	f, _, err := r.FormFile("oneroster")
	if err != nil {
		return nil, errs.InvalidField("oneroster", "is missing: choose the OneRoster zip")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, library.MaxRosterBytes+1))
	if err != nil || len(b) > library.MaxRosterBytes {
		return nil, errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The roster is larger than 8 MiB; sync it in parts.")
	}
	return b, nil
}
