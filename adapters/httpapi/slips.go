package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// overdueSlips answers a PDF of overdue slips for the homerooms' teachers:
// one slip per homeroom with overdue loans (or the one homeroom asked for),
// each starting on a page of its own. The path names the resource; the
// body is always PDF, in the language the caller reads the pages in
// (staffLang). It shares the label printing's slots: both draw a
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
	if !h.haveSlipPrinter(w, r) {
		return
	}
	name := "overdue-" + found.Date
	if class := safeFileName(library.HomeroomKey(p["homeroom"])); class != "" {
		name += "-" + class
	}
	h.printPDF(w, r, "overdue slips", name, func() ([]byte, error) {
		return h.deps.Slips.OverdueSlips(staffLang(r, found.School), found.School.Name, found.Date, found.Slips)
	})
}

// staffLang is the language of a document the person asking prints for
// the library's own use (slips, labels, cards): the one they read the
// pages in, their own choice, else the school's, else their browser's.
func staffLang(r *http.Request, school library.School) i18n.Lang {
	personal := ""
	if acct, ok := user.AccountFrom(r.Context()); ok {
		personal = acct.Preferences.Language
	}
	return i18n.Choose(personal, school.Settings.Language, r.Header.Get("Accept-Language"))
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

// loanReceipt answers a PDF receipt of what a borrower has out, for the
// desk to hand over at check-out: on A4 (paper=a4, the default) or on an
// 80 mm receipt printer's roll (paper=80mm). It goes home with the
// student, so it is in the student's language (Circulation.Receipt).
func (h *handler) loanReceipt(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "paper")
	if !ok {
		return
	}
	paper := ports.ReceiptPaper(p["paper"])
	switch paper {
	case "":
		paper = ports.ReceiptA4
	case ports.ReceiptA4, ports.ReceiptRoll80:
	default:
		httpedge.WriteError(w, r, errs.InvalidField("paper", "must be a4 or 80mm"))
		return
	}
	receipt, lang, err := h.deps.Library.Circulation.Receipt(r.Context(), p["schoolId"], pathID(r))
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if !h.haveSlipPrinter(w, r) {
		return
	}
	h.printPDF(w, r, "loan receipt", "receipt-"+receipt.Date, func() ([]byte, error) {
		return h.deps.Slips.LoanReceipt(lang, paper, receipt)
	})
}

// overdueLetters answers a PDF of take-home letters to the families of a
// homeroom's students with overdue books, or of one student: one letter
// each, addressed to the student's guardians, with the library's contact,
// in the school's language (guardians have no account to choose one).
func (h *handler) overdueLetters(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "homeroom", "student_id")
	if !ok {
		return
	}
	found, err := h.deps.Library.Circulation.OverdueLetters(r.Context(), p["schoolId"], p["homeroom"], p["student_id"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if !h.haveSlipPrinter(w, r) {
		return
	}
	name := "overdue-letters-" + found.Date
	if class := safeFileName(library.HomeroomKey(p["homeroom"])); class != "" {
		name += "-" + class
	}
	h.printPDF(w, r, "overdue letters", name, func() ([]byte, error) {
		return h.deps.Slips.OverdueLetters(found.School.Settings.Lang(), found.School.Name, found.Date, found.Contact, found.Letters)
	})
}

// haveSlipPrinter answers 500 when the service was wired without one.
func (h *handler) haveSlipPrinter(w http.ResponseWriter, r *http.Request) bool {
	if h.deps.Slips == nil {
		httpedge.WriteError(w, r, errs.E(errs.Internal, "", "httpapi: no slip printer configured"))
		return false
	}
	return true
}
