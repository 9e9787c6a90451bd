package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

// rosterMediaTypes are the bodies a roster sync takes: one simple CSV, a
// zip of OneRoster files, or the OneRoster files as form parts.
const rosterMediaTypes = "text/csv,application/zip,multipart/form-data"

// readRosterUpload reads a roster body of at most library.MaxRosterBytes.
// A multipart body's parts are files named by their filename (or their
// form name): orgs.csv, users.csv, classes.csv, enrollments.csv, and the
// export's manifest.csv and other OneRoster files.
func readRosterUpload(w http.ResponseWriter, r *http.Request) (service.RosterUpload, error) {
	tooBig := errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The roster is larger than 8 MiB; sync it in parts.")
	if r.ContentLength > library.MaxRosterBytes {
		return service.RosterUpload{}, tooBig
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, library.MaxRosterBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return service.RosterUpload{}, tooBig
		}
		return service.RosterUpload{}, errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body could not be read.")
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/zip":
		return service.RosterUpload{Zip: body}, nil
	case "multipart/form-data":
		files, err := readRosterParts(body, params["boundary"])
		return service.RosterUpload{Files: files}, err
	}
	return service.RosterUpload{CSV: body}, nil
}

func readRosterParts(body []byte, boundary string) (map[string][]byte, error) {
	malformed := func(msg string) error { return errs.E(errs.Malformed, errs.CodeMalformedJSON, "%s", msg) }
	if boundary == "" {
		return nil, malformed("The multipart body has no boundary.")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	files := map[string][]byte{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed("The multipart body cannot be read.")
		}
		name := path.Base(p.FileName())
		if p.FileName() == "" {
			name = p.FormName()
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, malformed("The multipart body cannot be read.")
		}
		if _, dup := files[name]; dup {
			return nil, errs.InvalidField(name, "is sent twice")
		}
		files[name] = data
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
			var up service.RosterUpload
			if up, err = readRosterUpload(w, r); err == nil {
				var (
					rep library.RosterReport
					job library.ImportJob
				)
				rep, job, err = h.deps.Library.Students.Sync(r.Context(), p["schoolId"], service.SyncInput{RosterUpload: up, Full: full, DryRun: dry})
				switch {
				case err == nil && job.ID != "":
					w.Header().Set("Location", "/api/library/jobs/"+job.ID)
					httpedge.WriteJSON(w, http.StatusAccepted, importJobReply{Job: toImportJobBody(service.ImportJobStatus{Job: job})})
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
		service.RolloverInput{SchoolYear: req.SchoolYear, LeavingGrade: req.LeavingGrade, DryRun: req.DryRun})
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

func toLeaverBody(l service.Leaver) leaverBody {
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
