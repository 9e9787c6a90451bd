package webapp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

// ----- moving the holdings in and out -----

// The import page takes the file as a multipart upload and checks it
// first (a dry run). The report's "Import" form carries the file back in
// a hidden field (base64, so a binary MARC 21 file survives), so the
// librarian does not choose it twice and the file imported is the file
// checked.

// holdingsUploadMediaType is the body of the import form: a file upload.
const holdingsUploadMediaType = "multipart/form-data"

type holdingsView struct {
	base
	Base   string
	Format string
	// Items is the item field the librarian named for a MARC file
	// ("949:i,a,l"), carried to the commit form.
	Items    string
	Report   *service.ImportReport
	Content  string // the checked file, base64, for the commit form
	Error    string
	Problems []lineProblem
	// MoreProblems counts the problems of a refused commit not listed.
	MoreProblems int
	CanImport    bool
	// Job is an import running in the background (?job=), with its
	// error's problems once it failed.
	Job         *service.ImportJobStatus
	JobProblems []lineProblem
}

// jobRefreshSeconds is how often the page of a running import reloads.
const jobRefreshSeconds = 3

func (a *App) holdingsPage(w http.ResponseWriter, r *http.Request, school library.School) {
	v := holdingsView{Format: library.HoldingsCSV}
	v.Flash = a.takeFlash(w, r)
	if id := r.URL.Query().Get("job"); id != "" {
		st, err := a.deps.Library.HoldingsFiles.Job(r.Context(), school.ID, id)
		if err != nil {
			v.Error = a.messageOf(r, err)
			a.renderHoldings(w, r, school, a.statusFor(err), v)
			return
		}
		v.Job = &st
		if st.Err != nil {
			v.JobProblems = lineProblems(st.Err)
		}
	}
	a.renderHoldings(w, r, school, http.StatusOK, v)
}

func (a *App) renderHoldings(w http.ResponseWriter, r *http.Request, school library.School, status int, v holdingsView) {
	flash := v.Flash
	v.base = a.schoolBase(r, school, "Import and export holdings", "holdings")
	v.Flash = flash
	v.Base = schoolPath(school)
	v.CanImport = a.allowed(r, "import", "library:holdings")
	if v.Job != nil && v.Job.Job.State == library.ImportJobRunning {
		v.Refresh = jobRefreshSeconds
	}
	a.render(w, r, status, "holdings", v)
}

// importHoldingsForm checks (action "check") or imports (action "import")
// a holdings file: the chosen file, or the checked file the report's form
// carries back.
func (a *App) importHoldingsForm(w http.ResponseWriter, r *http.Request, school library.School) {
	format, data, dryRun, err := readHoldingsUpload(w, r)
	v := holdingsView{Format: format, Items: r.FormValue("items")}
	var items library.ItemFields
	if err == nil {
		items, err = library.ParseItemFields(v.Items)
	}
	if err == nil {
		var (
			rep service.ImportReport
			job library.ImportJob
		)
		// A large file (or "in the background") is imported by a job: the
		// page then follows the job.
		rep, job, err = a.deps.Library.HoldingsFiles.ImportFile(r.Context(), school.ID, format, items, library.BytesUpload(data), dryRun, !dryRun && r.FormValue("async") == "true")
		if err == nil && job.ID != "" {
			http.Redirect(w, r, schoolPath(school)+"/holdings?job="+url.QueryEscape(job.ID), http.StatusSeeOther)
			return
		}
		if err == nil && !dryRun {
			a.redirect(w, r, schoolPath(school)+"/holdings", flash{Kind: "success", Message: fmt.Sprintf(
				"Imported %d %s and %d %s.", rep.BooksAdded, pluralize(rep.BooksAdded, "book", "books"), rep.CopiesAdded, pluralize(rep.CopiesAdded, "copy", "copies"))})
			return
		}
		if err == nil {
			v.Report = &rep
			v.Problems = toLineProblems(rep.Problems)
			if len(rep.Problems) == 0 {
				v.Content = base64.StdEncoding.EncodeToString(data)
			}
			a.renderHoldings(w, r, school, http.StatusOK, v)
			return
		}
	}
	v.Error, v.Problems = a.messageOf(r, err), lineProblems(err)
	if e, ok := errs.As(err); ok {
		if total, ok := e.Details["lines_total"].(int); ok {
			v.MoreProblems = max(total-len(v.Problems), 0)
		}
	}
	a.renderHoldings(w, r, school, a.statusFor(err), v)
}

func toLineProblems(in []library.LineError) []lineProblem {
	out := make([]lineProblem, 0, len(in))
	for _, p := range in {
		out = append(out, lineProblem{Line: p.Line, Field: p.Field, Message: p.Message})
	}
	return out
}

// readHoldingsUpload reads the import form: format, action, and the file
// (a chosen file, or the checked one carried back in "content").
func readHoldingsUpload(w http.ResponseWriter, r *http.Request) (format string, data []byte, dryRun bool, err error) {
	// base64 makes the carried file a third larger.
	const most = library.MaxHoldingsBytes*4/3 + 1<<20
	r.Body = http.MaxBytesReader(w, r.Body, most)
	if err := r.ParseMultipartForm(most); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return "", nil, false, errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The file is larger than %d MiB; import it in parts.", library.MaxHoldingsBytes>>20)
		}
		return "", nil, false, errs.E(errs.Malformed, errs.CodeMalformedForm, "The form could not be read.")
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	format, dryRun = r.FormValue("format"), r.FormValue("action") != "import"
	if content := r.FormValue("content"); content != "" {
		data, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			return format, nil, dryRun, errs.E(errs.Malformed, errs.CodeMalformedForm, "The form could not be read.")
		}
		return format, data, dryRun, nil
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		return format, nil, dryRun, errs.InvalidField("file", "choose the holdings file first")
	}
	defer f.Close()
	data, err = io.ReadAll(f)
	if err != nil {
		return format, nil, dryRun, errs.E(errs.Malformed, errs.CodeMalformedForm, "The file could not be read.")
	}
	return format, data, dryRun, nil
}
