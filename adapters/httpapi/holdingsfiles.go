package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
)

// holdingsFile marks the holdings import, whose body is the file itself:
// CSV, MARCXML or MARC21 (binary).
func holdingsFile(rt httpedge.Route) httpedge.Route {
	rt.MediaType = "text/csv,application/xml,text/xml,application/marc,application/marcxml+xml,application/octet-stream"
	return rt
}

type importLineBody struct {
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

type importDuplicateBody struct {
	Record    int    `json:"record"`
	Title     string `json:"title"`
	BookID    string `json:"book_id"`
	MatchedBy string `json:"matched_by"`
	Copies    int    `json:"copies"`
}

type importReportBody struct {
	DryRun        bool                  `json:"dry_run"`
	Committed     bool                  `json:"committed"`
	Format        string                `json:"format"`
	Records       int                   `json:"records"`
	BooksAdded    int                   `json:"books_added"`
	CopiesAdded   int                   `json:"copies_added"`
	CopiesPresent int                   `json:"copies_present"`
	Duplicates    []importDuplicateBody `json:"duplicates"`
	Problems      []importLineBody      `json:"problems"`
	ProblemsTotal int                   `json:"problems_total"`
	Notices       []importLineBody      `json:"notices"`
	NoticesTotal  int                   `json:"notices_total"`
}

func toImportLineBody(p library.LineError) importLineBody {
	return importLineBody{Line: p.Line, Field: p.Field, Message: p.Message}
}

func toImportReportBody(rep library.ImportReport) importReportBody {
	return importReportBody{DryRun: rep.DryRun, Committed: rep.Committed, Format: rep.Format, Records: rep.Records,
		BooksAdded: rep.BooksAdded, CopiesAdded: rep.CopiesAdded, CopiesPresent: rep.CopiesPresent,
		Duplicates: mapSlice(rep.Duplicates, func(d library.ImportDuplicate) importDuplicateBody {
			return importDuplicateBody{Record: d.Index, Title: d.Title, BookID: d.BookID, MatchedBy: d.MatchedBy, Copies: d.Copies}
		}),
		Problems: mapSlice(rep.Problems, toImportLineBody), ProblemsTotal: max(rep.ProblemsTotal, len(rep.Problems)),
		Notices: mapSlice(rep.Notices, toImportLineBody), NoticesTotal: max(rep.NoticesTotal, len(rep.Notices)),
	}
}

// importHoldings takes a holdings file as the body: ?format= names it
// (csv, marc21, marcxml), ?items= the field of a MARC file that holds its
// items when it is not a usual one ("949:i,a,l"), ?dry_run=true only
// reports. A file of more than service.AsyncImportRecords records, or
// ?async=true, is imported by a job: 202 with the job and its Location.
func (h *handler) importHoldings(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "format", "items", "dry_run", "async")
	if !ok {
		return
	}
	items, err := holdingsfile.ParseItemFields(p["items"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	dryRun, err := boolParam(p, "dry_run")
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	async, err := boolParam(p, "async")
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	file, err := h.spoolHoldingsBody(w, r)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	// ImportFile releases the file: at once, or when its job ends.
	rep, job, err := h.deps.Library.HoldingsFiles.ImportFile(r.Context(), p["schoolId"], p["format"], items, file, dryRun, async)
	if err == nil && job.ID != "" {
		w.Header().Set("Location", "/api/library/holdings/imports/"+job.ID)
		httpedge.WriteJSON(w, http.StatusAccepted, importJobReply{Job: toImportJobBody(usecase.ImportJobStatus{Job: job})})
		return
	}
	status := http.StatusCreated
	if dryRun {
		status = http.StatusOK
	}
	respond(w, r, status, importReportReply{Report: toImportReportBody(rep)}, err)
}

// importJobBody is a background job of any kind; report is the kind's
// report (a holdings import report, a roster report) once it is done.
type importJobBody struct {
	ID         string                 `json:"id"`
	Kind       string                 `json:"kind"`
	State      string                 `json:"state"`
	Format     string                 `json:"format"`
	DryRun     bool                   `json:"dry_run"`
	Records    int                    `json:"records"`
	StartedAt  time.Time              `json:"started_at"`
	FinishedAt *time.Time             `json:"finished_at"`
	Report     any                    `json:"report"`
	Error      *httpedge.ErrorPayload `json:"error"`
}

func toImportJobBody(st usecase.ImportJobStatus) importJobBody {
	j := st.Job
	b := importJobBody{ID: j.ID, Kind: j.Kind, State: j.State, Format: j.Format, DryRun: j.DryRun, Records: j.Records, StartedAt: j.StartedAt.UTC()}
	if !j.FinishedAt.IsZero() {
		at := j.FinishedAt.UTC()
		b.FinishedAt = &at
	}
	switch {
	case st.Report != nil:
		b.Report = toImportReportBody(*st.Report)
	case st.Roster != nil:
		b.Report = *st.Roster
	case st.Marked != nil:
		b.Report = markedReply{Marked: *st.Marked}
	}
	if st.Err != nil {
		p := httpedge.PayloadOf(st.Err)
		b.Error = &p
	}
	return b
}

// holdingsImportJob answers the state of an import job of the caller's
// school: running, done with its report, or failed with its error.
func (h *handler) holdingsImportJob(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	st, err := h.deps.Library.HoldingsFiles.Job(r.Context(), school, pathID(r))
	respond(w, r, http.StatusOK, importJobReply{Job: toImportJobBody(st)}, err)
}

// job answers the state of a background job of any kind of the caller's
// school: GET /api/library/jobs/{id}.
func (h *handler) job(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	st, err := h.deps.Library.Jobs.Get(r.Context(), school, pathID(r))
	respond(w, r, http.StatusOK, importJobReply{Job: toImportJobBody(st)}, err)
}

// spoolHoldingsBody streams a holdings file into the upload spool (into
// memory without one), refusing more than library.MaxHoldingsBytes.
func (h *handler) spoolHoldingsBody(w http.ResponseWriter, r *http.Request) (library.Upload, error) {
	return h.spoolBody(w, r, holdingsfile.MaxHoldingsBytes,
		errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The file is larger than %d MiB; import it in parts.", holdingsfile.MaxHoldingsBytes>>20))
}

// spoolBody streams a request body that is a file into the upload spool
// (into memory without one), refusing more than most bytes with tooLarge.
// The caller releases what it returns.
func (h *handler) spoolBody(w http.ResponseWriter, r *http.Request, most int64, tooLarge error) (library.Upload, error) {
	if r.ContentLength > most {
		return library.Upload{}, tooLarge
	}
	body := &httpedge.ReadWatch{R: http.MaxBytesReader(w, r.Body, most)}
	file, err := h.keep(body)
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return library.Upload{}, tooLarge
		}
		if body.Err != nil {
			return library.Upload{}, errs.E(errs.Malformed, errs.CodeMalformedJSON, "The request body could not be read.")
		}
		return library.Upload{}, errs.Wrap(err, "The file could not be kept for reading.")
	}
	return file, nil
}

// keep keeps a file for reading: in the upload spool, or in memory when
// the service has none.
func (h *handler) keep(r io.Reader) (library.Upload, error) {
	return httpedge.KeepUpload(h.deps.Uploads, r)
}

// exportHoldings streams the school's holdings as ?format=csv or marcxml,
// as a download.
func (h *handler) exportHoldings(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "format")
	if !ok {
		return
	}
	exp, err := h.deps.Library.HoldingsFiles.Export(r.Context(), p["schoolId"], p["format"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	writeHoldingsExport(w, r, exp)
}

// writeHoldingsExport answers an export as a download. Once the first byte
// is out the status is sent: a failure later cuts the body short, which the
// client sees as a broken download, and is logged by the caller's error.
func writeHoldingsExport(w http.ResponseWriter, r *http.Request, exp collection.HoldingsExport) {
	name, ctype := "holdings.csv", "text/csv; charset=utf-8"
	if exp.Format == holdingsfile.HoldingsMARCXML {
		name, ctype = "holdings.xml", "application/xml; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(name))
	w.WriteHeader(http.StatusOK)
	if err := exp.Write(w); err != nil {
		httpedge.Logger(r).Error("holdings export cut short", "error", err.Error())
		panic(http.ErrAbortHandler) // the response is cut short; nothing else can tell the client
	}
}

// WriteHoldingsExport lets the web app answer an export like the API.
func WriteHoldingsExport(w http.ResponseWriter, r *http.Request, exp collection.HoldingsExport) {
	writeHoldingsExport(w, r, exp)
}
