package usecase

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
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
type ImportSlots struct{ ch chan struct{} }

func NewImportSlots(n int) *ImportSlots { return &ImportSlots{ch: make(chan struct{}, n)} }

// take takes a slot without waiting: its release, or Unavailable
// "imports_busy" when every slot is taken.
func (s *ImportSlots) Take() (release func(), err error) {
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
