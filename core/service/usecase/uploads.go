package usecase

import (
	"io"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// lineErrors is the Invalid error of a refused upload: the first
// ReportListMost problems with their line (and file, for OneRoster) in
// details.lines, and how many there are in all in details.lines_total.
func LineErrors(lineErrs []library.LineError, outcome string) error {
	first := FirstLines(lineErrs)
	lines := make([]map[string]any, 0, len(first))
	for _, le := range first {
		l := map[string]any{"line": le.Line, "field": le.Field, "message": le.Message}
		if le.File != "" {
			l["file"] = le.File
		}
		lines = append(lines, l)
	}
	e := errs.E(errs.Invalid, errs.CodeValidationFailed, "The file has %d problem(s); %s.", len(lineErrs), outcome)
	e.Details = map[string]any{"lines": lines, "lines_total": len(lineErrs)}
	return e
}

// readUpload opens an upload for read; no upload reads as an empty file.
func ReadUpload(u library.Upload, read func(io.Reader)) error {
	if u.Open == nil {
		read(strings.NewReader(""))
		return nil
	}
	f, err := u.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	read(f)
	return nil
}

func FirstLines(in []library.LineError) []library.LineError {
	if len(in) > ReportListMost {
		return in[:ReportListMost:ReportListMost]
	}
	return in
}
