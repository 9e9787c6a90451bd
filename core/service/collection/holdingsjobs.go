package collection

import (
	"context"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ImportFile imports a holdings file as Import does, or, when async or the
// file has more than AsyncImportRecords records (a commit), starts a job
// and returns it (its ID set) without a report. It releases file once done
// with it: before it returns, or when its job ends. At most as many
// imports as LibraryConfig.MaxImports allows are read at once, a job's for
// as long as it runs.
// Errors: as Import; Conflict "import_running" (a job of the school is
// running, of any kind); Unavailable "imports_busy" with RetryAfter (as
// many imports as the process takes are being read).
func (s *HoldingsFiles) ImportFile(ctx context.Context, schoolParam, format string, items holdingsfile.ItemFields, file library.Upload, dryRun, async bool) (library.ImportReport, library.ImportJob, error) {
	handedOff := false
	defer func() {
		if !handedOff {
			file.Release()
		}
	}()
	if err := s.checkFormat(format, true); err != nil {
		return library.ImportReport{}, library.ImportJob{}, err
	}
	if err := checkItemFields(format, items); err != nil {
		return library.ImportReport{}, library.ImportJob{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.ImportReport{}, library.ImportJob{}, err
	}
	release, err := s.slots.Take()
	if err != nil {
		return library.ImportReport{}, library.ImportJob{}, err
	}
	defer func() {
		if !handedOff {
			release()
		}
	}()
	records := 0
	if !async && !dryRun { // a commit goes to a job when the file is large
		records = s.countRecords(format, items, file)
	}
	if !async && (dryRun || records <= usecase.AsyncImportRecords) {
		rep, err := s.Import(ctx, school.ID, format, items, file, dryRun)
		return rep, library.ImportJob{}, err
	}
	if async {
		records = s.countRecords(format, items, file)
	}
	job := s.jobs.NewJob(ctx, school.ID, library.JobKindHoldingsImport, format, records, dryRun)
	// The job gives the file and its import slot back as its work ends,
	// before its end is stored, so a job read as ended holds neither.
	err = s.jobs.Start(ctx, job, func(ctx context.Context) (usecase.ImportOutcome, error) {
		defer release()
		defer file.Release()
		rep, err := s.Import(ctx, job.SchoolID, job.Format, items, file, job.DryRun)
		return usecase.ImportOutcome{Report: &rep}, err
	})
	if err != nil {
		return library.ImportReport{}, library.ImportJob{}, err
	}
	handedOff = true
	return library.ImportReport{}, job, nil
}

// Job returns the state of a holdings import job of the caller's school
// (admins name it). A running job whose lease passed is ended as failed
// first. A job of another kind is not an import: not found here.
// Errors: NotFound "import_job_not_found" (none, another school's, or not
// an import), as scope.
func (s *HoldingsFiles) Job(ctx context.Context, schoolParam, id string) (usecase.ImportJobStatus, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return usecase.ImportJobStatus{}, err
	}
	st, err := s.jobs.Status(ctx, school.ID, id)
	if err == nil && st.Job.Kind != library.JobKindHoldingsImport {
		return usecase.ImportJobStatus{}, library.ErrImportJobNotFound()
	}
	return st, err
}
