package webapp

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- moving the holdings in and out -----

// The import page takes the file as a multipart upload and checks it
// first (a dry run). The report's "Import" form carries the file back in
// a hidden field (base64, so a binary MARC 21 file survives), so the
// librarian does not choose it twice and the file imported is the file
// checked; the page holds the file, not the server, so any replica can
// take the commit.

// holdingsUploadMediaType is the body of the import form: a file upload.
const holdingsUploadMediaType = "multipart/form-data"

type holdingsView struct {
	base
	Base   string
	Format string
	// Items is the item field the librarian named for a MARC file
	// ("949:i,a,l"), carried to the commit form.
	Items    string
	Report   *library.ImportReport
	Content  string // where the commit form carries the checked file (renderHoldingsCarrying)
	Error    string
	Problems []lineProblem
	// MoreProblems counts the problems of a refused commit not listed.
	MoreProblems int
	CanImport    bool
	// Job is an import running in the background (?job=), with its
	// error's problems once it failed.
	Job         *usecase.ImportJobStatus
	JobProblems []lineProblem
}

func (a *App) holdingsPage(w http.ResponseWriter, r *http.Request, school library.School) {
	v := holdingsView{Format: holdingsfile.HoldingsCSV}
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
	a.render(w, r, status, "holdings", a.holdingsPageOf(r, school, v))
}

// holdingsPageOf is v with what every holdings page shows.
func (a *App) holdingsPageOf(r *http.Request, school library.School, v holdingsView) holdingsView {
	flash := v.Flash
	v.base = a.schoolBase(r, school, "Import and export holdings", "holdings")
	v.Flash = flash
	v.Base = schoolPath(school)
	v.CanImport = a.allowed(r, "import", "library:holdings")
	return v
}

// importHoldingsForm checks (action "check") or imports (action "import")
// a holdings file: the chosen file, or the checked file the report's form
// carries back. The file is streamed into the upload spool, never held
// whole, and so is the checked file on its way back into the page.
func (a *App) importHoldingsForm(w http.ResponseWriter, r *http.Request, school library.School) {
	form, err := a.readHoldingsUpload(w, r)
	defer func() { form.file.Release() }() // what is still ours when the page is out
	v := holdingsView{Format: form.format, Items: form.items}
	var items holdingsfile.ItemFields
	if err == nil {
		items, err = holdingsfile.ParseItemFields(v.Items)
	}
	if err == nil {
		var (
			rep library.ImportReport
			job library.ImportJob
		)
		// A commit hands the file over (a job keeps it until it ends); a
		// dry run lends it, as the page may carry it back.
		file := form.file
		if form.dryRun {
			file.Remove = nil
		} else {
			form.file = library.Upload{}
		}
		// A large file (or "in the background") is imported by a job: the
		// page then follows the job.
		rep, job, err = a.deps.Library.HoldingsFiles.ImportFile(r.Context(), school.ID, form.format, items, file, form.dryRun, !form.dryRun && form.async)
		if err == nil && job.ID != "" {
			http.Redirect(w, r, schoolPath(school)+"/holdings?job="+url.QueryEscape(job.ID), http.StatusSeeOther)
			return
		}
		if err == nil && !form.dryRun {
			a.redirect(w, r, schoolPath(school)+"/holdings", flash{Kind: "success", Message: tr(r, "Imported %s and %s.",
				holdingsBooks(r, rep.BooksAdded), holdingsCopies(r, rep.CopiesAdded))})
			return
		}
		if err == nil {
			v.Report = &rep
			v.Problems = toLineProblems(rep.Problems)
			if len(rep.Problems) == 0 {
				a.renderHoldingsCarrying(w, r, school, v, form.file)
				return
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

// renderHoldingsCarrying renders the report of a clean check with file in
// its commit form, base64 (so a binary MARC 21 file survives), written
// from the file as the page goes out: the page is rendered around a
// marker, which the file's text then takes the place of.
func (a *App) renderHoldingsCarrying(w http.ResponseWriter, r *http.Request, school library.School, v holdingsView, file library.Upload) {
	marker := "carriedfile" + strings.ReplaceAll(uuid.NewString(), "-", "")
	v.Content = marker
	a.renderStreaming(w, r, http.StatusOK, "holdings", a.holdingsPageOf(r, school, v), marker, base64Of(file))
}

// base64Of writes a kept file as base64, for a form that carries it.
func base64Of(file library.Upload) func(io.Writer) error {
	return func(w io.Writer) error {
		f, err := file.Open()
		if err != nil {
			return err
		}
		defer f.Close()
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if _, err := io.Copy(enc, f); err != nil {
			return err
		}
		return enc.Close()
	}
}

// holdingsBooks counts books in the page's language: "1 book", "3 books".
func holdingsBooks(r *http.Request, n int) string {
	if n == 1 {
		return tr(r, "1 book")
	}
	return tr(r, "%d books", n)
}

// holdingsCopies counts copies in the page's language: "1 copy", "3 copies".
func holdingsCopies(r *http.Request, n int) string {
	if n == 1 {
		return tr(r, "1 copy")
	}
	return tr(r, "%d copies", n)
}

func toLineProblems(in []library.LineError) []lineProblem {
	out := make([]lineProblem, 0, len(in))
	for _, p := range in {
		out = append(out, lineProblem{Line: p.Line, Field: p.Field, Message: p.Message})
	}
	return out
}

// holdingsUpload is the import form as read: its fields, and the file (the
// chosen one, or the checked one carried back in "content").
type holdingsUpload struct {
	format, items string
	dryRun, async bool
	file          library.Upload
}

// maxHoldingsFieldBytes bounds each of the form's fields but the file.
const maxHoldingsFieldBytes = 1 << 10

// readHoldingsUpload reads the import form part by part, the file into the
// upload spool (into memory when the service has none). The returned
// upload is to be released by the caller, whatever the error.
func (a *App) readHoldingsUpload(w http.ResponseWriter, r *http.Request) (holdingsUpload, error) {
	// base64 makes the carried file a third larger.
	const most = holdingsfile.MaxHoldingsBytes*4/3 + 1<<20
	r.Body = http.MaxBytesReader(w, r.Body, most)
	tooBig := errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The file is larger than %d MiB; import it in parts.", holdingsfile.MaxHoldingsBytes>>20)
	unreadable := errs.E(errs.Malformed, errs.CodeMalformedForm, "The form could not be read.")
	var (
		gotChosen, gotReturned bool
		chosen, returned       library.Upload
		fields                 = map[string]string{}
	)
	fail := func(err error) (holdingsUpload, error) {
		chosen.Release()
		returned.Release()
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return holdingsUpload{format: fields["format"]}, tooBig
		}
		return holdingsUpload{format: fields["format"]}, unreadable
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return fail(err)
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		switch name := p.FormName(); {
		case name == "file" && p.FileName() != "" && !gotChosen:
			gotChosen = true
			if chosen, err = a.keep(p); err != nil {
				return fail(err)
			}
		case name == "content" && !gotReturned:
			gotReturned = true
			if returned, err = a.keep(base64.NewDecoder(base64.StdEncoding, p)); err != nil {
				return fail(err)
			}
		case name == "file" || name == "content":
			// A file input left empty, or a second file: nothing to keep.
			if _, err := io.Copy(io.Discard, p); err != nil {
				return fail(err)
			}
		default:
			b, err := io.ReadAll(io.LimitReader(p, maxHoldingsFieldBytes+1))
			if err != nil || len(b) > maxHoldingsFieldBytes {
				return fail(err)
			}
			if _, seen := fields[name]; !seen {
				fields[name] = string(b)
			}
		}
	}
	form := holdingsUpload{format: fields["format"], items: fields["items"], dryRun: fields["action"] != "import", async: fields["async"] == "true"}
	switch {
	case gotReturned && returned.Size > 0: // the checked file wins over a file chosen again
		chosen.Release()
		form.file = returned
	case gotChosen:
		returned.Release() // an empty "content" carries nothing
		form.file = chosen
	default:
		returned.Release()
		return form, errs.InvalidField("file", "choose the holdings file first")
	}
	return form, nil
}

// keep keeps a file of the form for reading: in the upload spool, or in
// memory when the service has none.
func (a *App) keep(r io.Reader) (library.Upload, error) {
	return httpedge.KeepUpload(a.deps.Uploads, r)
}
