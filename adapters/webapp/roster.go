package webapp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
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
	// ZipB64 marks where the apply form carries a checked OneRoster zip,
	// base64: renderRosterCarrying writes the zip there from its file.
	ZipB64    string
	Report    *roster.RosterReport
	SyncErr   string
	SyncRows  []lineProblem
	Rollover  *roster.RolloverPlan
	Year      string
	Leaving   string
	RollErr   string
	Leavers   []leaverRow
	LeaversOK bool
	// Job is a sync running in the background (?job=): the page follows
	// it, reloading while it runs.
	Job *usecase.ImportJobStatus
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
	v, err := a.rosterPageOf(r, school, v)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, status, "roster", v)
}

// renderRosterCarrying renders a clean check of a OneRoster zip with the
// zip in its apply form, base64, written from the file as the page goes
// out: the page is rendered around a marker, which the file's text then
// takes the place of.
func (a *App) renderRosterCarrying(w http.ResponseWriter, r *http.Request, school library.School, v rosterView, zipped library.Upload) {
	v.ZipB64 = "carriedzip" + strings.ReplaceAll(uuid.NewString(), "-", "")
	v, err := a.rosterPageOf(r, school, v)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.renderStreaming(w, r, http.StatusOK, "roster", v, v.ZipB64, base64Of(zipped))
}

// rosterPageOf is v with what every Roster page shows: the leavers, and
// which forms the caller may use.
func (a *App) rosterPageOf(r *http.Request, school library.School, v rosterView) (rosterView, error) {
	leavers, err := a.deps.Library.Students.Leavers(r.Context(), school.ID)
	if err != nil {
		return v, err
	}
	fl := v.Flash
	v.base = a.schoolBase(r, school, "Roster", "roster")
	v.Flash = fl
	v.Base = schoolPath(school)
	v.CanSync = a.allowed(r, "sync", "library:students")
	v.CanRollover = a.allowed(r, "rollover", "library:students")
	for _, l := range leavers {
		row := leaverRow{ID: l.Student.ID, Name: l.Student.Name, Number: l.Student.StudentNumber, Grade: l.Student.Grade, Homeroom: l.Student.Homeroom}
		for _, ln := range l.Loans {
			row.Books = append(row.Books, tr(r, "%s (copy %s, due %s)", ln.BookTitle, ln.CopyCode, shortDate(r, ln.DueAt)))
		}
		v.Leavers = append(v.Leavers, row)
	}
	return v, nil
}

// syncRoster is the sync of a pasted CSV: its dry run shows the report
// and a form to apply the same file, which applies it all or nothing.
func (a *App) syncRoster(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	form := r.PostForm
	v := rosterView{CSV: form.Get("csv"), Full: form.Get("full") == "on"}
	var (
		rep roster.RosterReport
		job library.ImportJob
		err error
	)
	if strings.TrimSpace(v.CSV) == "" {
		err = errs.InvalidField("csv", "is empty: paste the CSV file or choose it")
	} else {
		rep, job, err = a.deps.Library.Students.Sync(r.Context(), school.ID,
			students.SyncInput{RosterUpload: students.RosterUpload{CSV: library.BytesUpload([]byte(v.CSV))}, Full: v.Full, DryRun: dryRun})
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
	a.redirect(w, r, schoolPath(school)+"/roster", syncedFlash(i18n.From(r.Context()), rep))
}

// rollover moves the students up a year; its dry run shows the plan.
func (a *App) rollover(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	form := r.PostForm
	v := rosterView{Year: strings.TrimSpace(form.Get("school_year")), Leaving: strings.TrimSpace(form.Get("leaving_grade"))}
	plan, err := a.deps.Library.Students.Rollover(r.Context(), school.ID,
		students.RolloverInput{SchoolYear: v.Year, LeavingGrade: v.Leaving, DryRun: dryRun})
	if err != nil {
		v.RollErr = a.messageOf(r, err)
		for f, m := range fieldErrors(r, err) {
			v.RollErr = fmt.Sprintf("%s %s.", rolloverField(r, f), m)
		}
		a.renderRoster(w, r, school, a.statusFor(err), v)
		return
	}
	if dryRun {
		v.Rollover = &plan
		a.renderRoster(w, r, school, http.StatusOK, v)
		return
	}
	a.redirect(w, r, schoolPath(school)+"/roster", flash{Kind: "success", Message: tr(r,
		"Rolled over %s: %d moved up, %d left (%s), %d not read.", plan.SchoolYear, len(plan.Promoted), len(plan.Leaving), plan.LeavingGrade, len(plan.Unreadable))})
}

// rolloverField names a field of the rollover form in a refusal: the
// words of the service's field name, in the page's language.
func rolloverField(r *http.Request, field string) string {
	switch field {
	case "school_year":
		return tr(r, "school year")
	case "leaving_grade":
		return tr(r, "leaving grade")
	}
	return strings.ReplaceAll(field, "_", " ")
}

// syncOneRoster checks a OneRoster 1.1 zip chosen at the desk (the dry
// run), or applies the zip the check carried (base64 in the apply form),
// re-read and re-checked, all or nothing. The zip is streamed into the
// upload spool, never held whole, and so is the checked zip on its way
// back into the page.
func (a *App) syncOneRoster(w http.ResponseWriter, r *http.Request, school library.School, dryRun bool) {
	// base64 makes the carried zip a third larger than the cap.
	r.Body = http.MaxBytesReader(w, r.Body, roster.MaxRosterBytes*3/2)
	v := rosterView{}
	form, err := a.readDeskZip(r, dryRun)
	defer form.zip.Release()
	if err == nil {
		v.Full = form.full
		var (
			rep roster.RosterReport
			job library.ImportJob
		)
		rep, job, err = a.deps.Library.Students.Sync(r.Context(), school.ID,
			students.SyncInput{RosterUpload: students.RosterUpload{Zip: form.zip}, Full: v.Full, DryRun: dryRun})
		if err == nil && job.ID != "" {
			a.syncStarted(w, r, school, job)
			return
		}
		if err == nil && !dryRun {
			a.redirect(w, r, schoolPath(school)+"/roster", syncedFlash(i18n.From(r.Context()), rep))
			return
		}
		v.Report = &rep
	}
	if err != nil {
		v.Report = nil
		a.refuseSync(w, r, school, v, err)
		return
	}
	if len(v.Report.Conflicts) > 0 {
		// A report with conflicts offers no apply form to carry the zip.
		a.renderRoster(w, r, school, http.StatusOK, v)
		return
	}
	a.renderRosterCarrying(w, r, school, v, form.zip)
}

// refuseSync shows the roster page again with a refused sync's message,
// its problem lines and the report the refusal carries.
func (a *App) refuseSync(w http.ResponseWriter, r *http.Request, school library.School, v rosterView, err error) {
	v.SyncErr, v.SyncRows = a.messageOf(r, err), lineProblems(err)
	if e, ok := errs.As(err); ok {
		if report, ok := e.Details["report"].(roster.RosterReport); ok {
			v.Report = &report
		}
	}
	a.renderRoster(w, r, school, a.statusFor(err), v)
}

// syncedFlash is the message after an applied sync, in lang.
func syncedFlash(lang i18n.Lang, rep roster.RosterReport) flash {
	msg := lang.T("Roster synced: %d added, %d changed, %d made inactive.", len(rep.Added), len(rep.Changed), len(rep.Deactivated))
	if n := len(rep.HomeroomTeachers); n > 0 {
		// A flash is one line: the first few rooms name the rest.
		var set []string
		for _, h := range rep.HomeroomTeachers[:min(n, flashHomerooms)] {
			set = append(set, h.Homeroom)
		}
		if n > flashHomerooms {
			set = append(set, lang.T("and %d more", n-flashHomerooms))
		}
		msg += " " + lang.T("Homeroom teachers set in the list: %s.", strings.Join(set, ", "))
	}
	switch n := len(rep.HomeroomsWithoutTeacher); {
	case n == 1:
		msg += " " + lang.T("1 homeroom not set from the roster (check the roster to see why).")
	case n > 1:
		msg += " " + lang.T("%d homerooms not set from the roster (check the roster to see why).", n)
	}
	return flash{Kind: "success", Message: msg}
}

// flashHomerooms is how many homerooms the flash of a sync names.
const flashHomerooms = 10

// deskZip is a OneRoster form as read: the zip (the chosen file for a
// check, the carried one for the apply) and the full box.
type deskZip struct {
	zip  library.Upload
	full bool
}

// maxDeskFieldBytes bounds each of the form's fields but the zip.
const maxDeskFieldBytes = 1 << 10

// readDeskZip reads a OneRoster form part by part, the zip into the upload
// spool (into memory when the service has none): the chosen file for a
// check, the carried base64 for the apply. The returned zip is to be
// released by the caller, whatever the error.
func (a *App) readDeskZip(r *http.Request, fromFile bool) (deskZip, error) {
	tooBig := errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The roster is larger than 8 MiB; sync it in parts.")
	var (
		form            deskZip
		gotZip, gotFull bool
		badZip          bool // the carried zip is not base64
		zipName         = "zip"
	)
	if fromFile {
		zipName = "oneroster"
	}
	// Any failure to read the form is answered as one too large, as it
	// was when the form was parsed whole first.
	fail := func(err error) (deskZip, error) {
		form.zip.Release()
		if err == nil {
			err = tooBig
		}
		return deskZip{}, err
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return fail(nil)
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(nil)
		}
		// A file is a part with a filename; the carried zip and the box
		// are plain fields.
		isFile := p.FileName() != ""
		switch name := p.FormName(); {
		case name == zipName && isFile == fromFile && !gotZip:
			gotZip = true
			part := &httpedge.ReadWatch{R: p}
			in := base64.NewDecoder(base64.StdEncoding, part)
			if fromFile {
				// One byte past the cap tells "exactly the cap" from more.
				in = io.LimitReader(part, roster.MaxRosterBytes+1)
			}
			form.zip, err = a.keep(in)
			var corrupt base64.CorruptInputError
			switch {
			case err == nil:
			case part.Err != nil:
				return fail(nil)
			case errors.As(err, &corrupt):
				badZip = true
			default:
				return fail(errs.Wrap(err, "The roster could not be kept for reading."))
			}
			if _, err := io.Copy(io.Discard, p); err != nil {
				return fail(nil)
			}
		case name == "full" && !isFile && !gotFull:
			gotFull = true
			b, err := io.ReadAll(io.LimitReader(p, maxDeskFieldBytes))
			if err != nil {
				return fail(nil)
			}
			form.full = string(b) == "on"
			if _, err := io.Copy(io.Discard, p); err != nil {
				return fail(nil)
			}
		default:
			if _, err := io.Copy(io.Discard, p); err != nil {
				return fail(nil)
			}
		}
	}
	switch {
	case fromFile && !gotZip:
		return fail(errs.InvalidField("oneroster", "is missing: choose the OneRoster zip"))
	case fromFile && form.zip.Size > roster.MaxRosterBytes:
		return fail(nil)
	case !fromFile && (!gotZip || badZip || form.zip.Size == 0):
		return fail(errs.InvalidField("zip", "is missing: check the roster again"))
	}
	return form, nil
}
