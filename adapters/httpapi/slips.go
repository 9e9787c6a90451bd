package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// overdueSlips answers a PDF of overdue slips for the homerooms' teachers:
// one slip per homeroom with overdue loans (or the one homeroom asked for),
// each starting on a page of its own. The path names the resource; the
// body is always PDF. It shares the label printing's slots: both draw a
// PDF with the same fonts and cost alike.
func (h *handler) overdueSlips(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "homeroom")
	if !ok {
		return
	}
	found, err := h.deps.Library.Circulation.OverdueSlips(r.Context(), p["schoolId"], p["homeroom"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if h.deps.Slips == nil {
		httpedge.WriteError(w, r, errs.E(errs.Internal, "", "httpapi: no slip printer configured"))
		return
	}
	name := "overdue-" + found.Date
	if class := safeFileName(library.HomeroomKey(p["homeroom"])); class != "" {
		name += "-" + class
	}
	h.printPDF(w, r, "overdue slips", name, func() ([]byte, error) {
		return h.deps.Slips.OverdueSlips(found.School.Name, found.Date, found.Slips)
	})
}

// safeFileName keeps the ASCII letters and digits of s and turns every
// other run into one '-', so a homeroom can name a file in any header.
func safeFileName(s string) string {
	out := make([]byte, 0, len(s))
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			if dash && len(out) > 0 {
				out = append(out, '-')
			}
			out, dash = append(out, c), false
			continue
		}
		dash = true
	}
	return string(out)
}
