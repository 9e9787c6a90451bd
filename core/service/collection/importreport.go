package collection

import (
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// capReport cuts the report's lists of problems and notices to their
// first ReportListMost and keeps their totals.
func capReport(rep *library.ImportReport) {
	rep.ProblemsTotal, rep.NoticesTotal = len(rep.Problems), len(rep.Notices)
	rep.Problems = usecase.FirstLines(rep.Problems)
	rep.Notices = usecase.FirstLines(rep.Notices)
}
