package service

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// DefaultMaxImports is how many uploaded files (holdings files, rosters,
// student files, scanner files) are read at once in the process unless
// LibraryConfig.MaxImports says otherwise: each holds its file's records
// and plan in memory.
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
