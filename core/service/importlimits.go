package service

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// DefaultMaxImports is how many uploaded files (holdings files, rosters,
// student files, scanner files) are read at once in the process unless
// LimitImports says otherwise: each holds its file's records and plan in
// memory.
const DefaultMaxImports = 2

// ReportListMost is how many problems and notices a report lists; it
// says how many there are in all.
const ReportListMost = 100

// importsBusyRetry is the wait an import turned away is told to take.
const importsBusyRetry = 10 * time.Second

// importSlots bounds the uploads being read at once. The use cases that
// read uploads share one.
type importSlots struct{ ch chan struct{} }

func newImportSlots(n int) *importSlots { return &importSlots{ch: make(chan struct{}, n)} }

// take takes a slot without waiting: its release, or Unavailable
// "imports_busy" when every slot is taken.
func (s *importSlots) take() (release func(), err error) {
	ch := s.ch
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	default:
		e := errs.E(errs.Unavailable, errs.CodeImportsBusy, "The service is reading as many uploaded files as it can at once; nothing was changed. Try again in a moment.")
		e.RetryAfter = importsBusyRetry
		return nil, e
	}
}

// LimitImports sets how many uploads (holdings imports' dry runs,
// commits and running jobs, roster syncs and their jobs, student and
// scanner files) are read at once; one more is refused. Set it before
// serving.
func (l *Library) LimitImports(n int) {
	if n < 1 {
		n = 1
	}
	l.HoldingsFiles.slots.ch = make(chan struct{}, n)
}

// OnImportReading sets a function called by each import once it holds
// its slot, before it reads its file (tests hold an import there).
func (l *Library) OnImportReading(f func(context.Context)) { l.HoldingsFiles.reading = f }

// capReport cuts the report's lists of problems and notices to their
// first ReportListMost and keeps their totals.
func capReport(rep *ImportReport) {
	rep.ProblemsTotal, rep.NoticesTotal = len(rep.Problems), len(rep.Notices)
	rep.Problems = firstLines(rep.Problems)
	rep.Notices = firstLines(rep.Notices)
}

func firstLines(in []library.LineError) []library.LineError {
	if len(in) > ReportListMost {
		return in[:ReportListMost:ReportListMost]
	}
	return in
}

// MoreProblems is how many problems the report counts but does not list.
func (r ImportReport) MoreProblems() int { return max(r.ProblemsTotal-len(r.Problems), 0) }

// MoreNotices is how many notices the report counts but does not list.
func (r ImportReport) MoreNotices() int { return max(r.NoticesTotal-len(r.Notices), 0) }

// OnJobError sets what is told of a background job's error (the log): the
// job's end says only that it failed, so without it an internal failure
// leaves no trace of its cause.
func (l *Library) OnJobError(f func(op string, err error)) { l.HoldingsFiles.jobs.bg.onError = f }
