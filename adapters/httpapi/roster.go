package httpapi

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
)

// rosterMediaTypes are the bodies a roster sync takes: one simple CSV, a
// zip of OneRoster files, or the OneRoster files as form parts.
const rosterMediaTypes = "text/csv,application/zip,multipart/form-data"

// readRosterUpload keeps a roster body of at most library.MaxRosterBytes
// in the upload spool (in memory without one): one file, or each part of
// a multipart body in a file of its own. A multipart body's parts are
// files named by their filename (or their form name): orgs.csv,
// users.csv, classes.csv, enrollments.csv, and the export's manifest.csv
// and other OneRoster files. The caller releases what it returns.
func (h *handler) readRosterUpload(w http.ResponseWriter, r *http.Request) (students.RosterUpload, error) {
	tooBig := errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The roster is larger than 8 MiB; sync it in parts.")
	if r.ContentLength > roster.MaxRosterBytes {
		return students.RosterUpload{}, tooBig
	}
	body := &httpedge.ReadWatch{R: http.MaxBytesReader(w, r.Body, roster.MaxRosterBytes)}
	// bodyFailed is the answer to a body that could not be read whole: it
	// comes before anything the body says, as when it was read first.
	bodyFailed := func() error {
		var mbe *http.MaxBytesError
		switch {
		case body.Err == nil:
			return nil
		case errors.As(body.Err, &mbe):
			return tooBig
		}
		return errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body could not be read.")
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		files, err := h.spoolRosterParts(body, params["boundary"])
		// Read to its end, a body is refused for its size before its parts.
		_, _ = io.Copy(io.Discard, body)
		if berr := bodyFailed(); berr != nil {
			err = berr
		}
		if err != nil {
			students.RosterUpload{Files: files}.Release()
			return students.RosterUpload{}, err
		}
		return students.RosterUpload{Files: files}, nil
	}
	file, err := h.keep(body)
	if err != nil {
		if berr := bodyFailed(); berr != nil {
			return students.RosterUpload{}, berr
		}
		return students.RosterUpload{}, errs.Wrap(err, "The roster could not be kept for reading.")
	}
	if mt == "application/zip" {
		return students.RosterUpload{Zip: file}, nil
	}
	return students.RosterUpload{CSV: file}, nil
}

// spoolRosterParts keeps each part of a multipart roster body as a file of
// its own, by name. What it returns, with or without an error, is the
// caller's to release.
func (h *handler) spoolRosterParts(body io.Reader, boundary string) (map[string]library.Upload, error) {
	malformed := func(msg string) error { return errs.E(errs.Malformed, errs.CodeMalformedJSON, "%s", msg) }
	if boundary == "" {
		return nil, malformed("The multipart body has no boundary.")
	}
	mr := multipart.NewReader(body, boundary)
	files := map[string]library.Upload{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, malformed("The multipart body cannot be read.")
		}
		name := path.Base(p.FileName())
		if p.FileName() == "" {
			name = p.FormName()
		}
		part := &httpedge.ReadWatch{R: p}
		file, err := h.keep(part)
		if err != nil {
			if part.Err != nil {
				return files, malformed("The multipart body cannot be read.")
			}
			return files, errs.Wrap(err, "The roster could not be kept for reading.")
		}
		if _, dup := files[name]; dup {
			file.Release()
			return files, errs.InvalidField(name, "is sent twice")
		}
		files[name] = file
	}
	if len(files) == 0 {
		return nil, errs.InvalidField("users.csv", "is required: it lists the students")
	}
	return files, nil
}

// boolParam reads a query flag: absent is false, "true" or "false".
func boolParam(p map[string]string, name string) (bool, error) {
	switch p[name] {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, errs.InvalidField(name, "must be true or false")
}

// syncStudents reports (dry_run=true) or applies a roster: POST
// /api/library/students/sync?schoolId=&dry_run=&full=. A commit of more
// than service.AsyncRosterStudents students added or changed is applied
// by a job: 202 with the job and its Location.
func (h *handler) syncStudents(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "dry_run", "full")
	if !ok {
		return
	}
	dry, err := boolParam(p, "dry_run")
	if err == nil {
		var full bool
		if full, err = boolParam(p, "full"); err == nil {
			var up students.RosterUpload
			if up, err = h.readRosterUpload(w, r); err == nil {
				// The sync reads the files before it answers (a job stores
				// the plan it made), so they go when it returns.
				defer up.Release()
				var (
					rep roster.RosterReport
					job library.ImportJob
				)
				rep, job, err = h.deps.Library.Students.Sync(r.Context(), p["schoolId"], students.SyncInput{RosterUpload: up, Full: full, DryRun: dry})
				switch {
				case err == nil && job.ID != "":
					w.Header().Set("Location", "/api/library/jobs/"+job.ID)
					httpedge.WriteJSON(w, http.StatusAccepted, importJobReply{Job: toImportJobBody(usecase.ImportJobStatus{Job: job})})
					return
				case err == nil:
					httpedge.WriteJSON(w, http.StatusOK, rosterSyncReply{DryRun: dry, Full: full, Report: rep})
					return
				}
			}
		}
	}
	httpedge.WriteError(w, r, err)
}

type rolloverRequest struct {
	SchoolID     string `json:"school_id"`
	SchoolYear   string `json:"school_year"`
	LeavingGrade string `json:"leaving_grade"`
	DryRun       bool   `json:"dry_run"`
}

// rollover reports (dry_run) or runs the school's year-end rollover.
func (h *handler) rollover(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[rolloverRequest](w, r)
	if !ok {
		return
	}
	plan, err := h.deps.Library.Students.Rollover(r.Context(), req.SchoolID,
		students.RolloverInput{SchoolYear: req.SchoolYear, LeavingGrade: req.LeavingGrade, DryRun: req.DryRun})
	respond(w, r, http.StatusOK, rolloverReply{DryRun: req.DryRun, Rollover: plan}, err)
}

type leaverLoanBody struct {
	LoanID    string `json:"loan_id"`
	BookTitle string `json:"book_title"`
	CopyCode  string `json:"copy_code"`
	DueAt     string `json:"due_at"`
}

type leaverBody struct {
	Student studentBody      `json:"student"`
	Loans   []leaverLoanBody `json:"loans"`
}

func toLeaverBody(l students.Leaver) leaverBody {
	return leaverBody{Student: toStudentBody(l.Student), Loans: mapSlice(l.Loans, func(ln library.Loan) leaverLoanBody {
		return leaverLoanBody{LoanID: ln.ID, BookTitle: ln.BookTitle, CopyCode: ln.CopyCode, DueAt: ln.DueAt}
	})}
}

// leavers lists the inactive students who still hold books.
func (h *handler) leavers(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	list, err := h.deps.Library.Students.Leavers(r.Context(), school)
	respond(w, r, http.StatusOK, leaversReply{Leavers: mapSlice(list, toLeaverBody)}, err)
}
