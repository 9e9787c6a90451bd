package labels

import (
	"fmt"
	"strings"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

// OverdueLetters is the package's OverdueLetters in lang.
func (Printer) OverdueLetters(lang i18n.Lang, school, date, contact string, letters []ports.OverdueLetter) ([]byte, error) {
	return overdueLetters(lang, school, date, contact, letters)
}

func (d *drawer) letterTitle() string { return d.lang.T("Overdue library books") }

var letterColumns = []column{
	{textKey("Title"), 0.55, false, false},
	{textKey("Copy"), 0.19, false, false},
	{textKey("Due"), 0.12, false, true},
	{textKey("Days overdue"), 0.14, true, false},
}

// OverdueLetters lays out one A4 letter per student, each starting on a
// new page (the slips' page): the school's name, "Overdue library books"
// and the date; "To <guardians, joined by 'and'>" ("To the parent or
// guardian of <student>" when there are none); "These library books
// borrowed by <student> (<homeroom>) are overdue:"; a table of title, copy
// code, due date and days overdue; a request to bring them back or renew
// them, the library's contact (contact, or the school when it is empty)
// and "<school> library". A letter longer than a page goes on over further
// pages headed the same, marked "continued, page n of m", with the
// sentence naming the student and the table's heading repeated. No letters
// print one page that says nothing is overdue. Text is shortened or
// wrapped to fit; characters the embedded font lacks print as "?".
// The letters are in English; Printer's in the language asked for.
// Errors: the PDF cannot be written.
func OverdueLetters(school, date, contact string, letters []ports.OverdueLetter) ([]byte, error) {
	return overdueLetters(i18n.English, school, date, contact, letters)
}

func overdueLetters(lang i18n.Lang, school, date, contact string, letters []ports.OverdueLetter) ([]byte, error) {
	d, err := newPageDrawer(lang)
	if err != nil {
		return nil, err
	}
	if len(letters) == 0 {
		if err := d.nothingOverdue(school, d.letterTitle(), date); err != nil {
			return nil, fmt.Errorf("labels: letters: %w", err)
		}
	}
	for _, l := range letters {
		if err := d.letter(school, date, contact, l); err != nil {
			return nil, fmt.Errorf("labels: letter of %q: %w", l.Student, err)
		}
	}
	return d.bytes()
}

// letter draws one student's letter on as many pages as its lines need.
func (d *drawer) letter(school, date, contact string, l ports.OverdueLetter) error {
	var names []string
	for _, g := range l.Guardians {
		if g = strings.TrimSpace(g); g != "" {
			names = append(names, g)
		}
	}
	greeting := d.lang.T("To the parent or guardian of %s", l.Student)
	if len(names) > 0 {
		all := names[0]
		for _, n := range names[1:] {
			all = d.lang.T("%s and %s", all, n)
		}
		greeting = d.lang.T("To %s", all)
	}
	student := l.Student
	if l.Homeroom != "" {
		student += " (" + l.Homeroom + ")"
	}
	about := d.lang.T("These library books borrowed by %s are overdue:", student)
	please := d.lang.T("Please help %s bring them back to the library, or ask the librarian to renew them.", l.Student)
	if len(l.Lines) == 0 {
		about, please = d.lang.T("No library book borrowed by %s is overdue.", student), ""
	}
	reach := d.lang.T("To contact the library: %s", contact)
	if strings.TrimSpace(contact) == "" {
		reach = d.lang.T("To contact the library, please contact %s.", school)
	}
	// Each paragraph with the space above it; the greeting is on the
	// first page only, the sentence naming the student on every page.
	var paras [5][]string
	for i, s := range []string{greeting, about, please, reach, d.lang.T("%s library", school)} {
		var err error
		if paras[i], err = d.wrap(fontRegular, bodySize, s, slipWidth, 3); err != nil {
			return err
		}
	}
	greet, intro, closing := paras[0], paras[1], paras[2:]
	lh := func(p []string) float64 { return float64(len(p)) * bodyLineH }
	start := slipHeaderEnd + 2*slipHeadGap
	first := start + lh(greet) + bodyLineH + lh(intro) + slipHeadGap
	next := start + lh(intro) + slipHeadGap
	tail := closingGap
	for _, p := range closing {
		tail += lh(p) + slipHeadGap
	}

	cols, err := d.columns(letterColumns)
	if err != nil {
		return err
	}
	bounds := pageRows(len(l.Lines), slipRowH, first, next, tail)
	pages := len(bounds) - 1
	for p := range pages {
		d.pdf.AddPage()
		if err := d.slipHeader(school, d.letterTitle(), d.pageMark(date, p, pages)); err != nil {
			return err
		}
		top := start
		if p == 0 {
			if err := d.paragraph(greet, top); err != nil {
				return err
			}
			top += lh(greet) + bodyLineH
		}
		if err := d.paragraph(intro, top); err != nil {
			return err
		}
		top += lh(intro) + slipHeadGap
		if len(l.Lines) > 0 {
			var err error
			if top, err = d.headings(cols, top); err != nil {
				return err
			}
		}
		for _, ln := range l.Lines[bounds[p]:bounds[p+1]] {
			cells := []string{ln.Title, ln.CopyCode, d.date(ln.DueAt), d.count(ln.DaysOverdue)}
			if err := d.row(cols, slipRowH, fontRegular, cells, top); err != nil {
				return err
			}
			top += slipRowH
		}
		if p < pages-1 {
			continue
		}
		top += closingGap
		for _, para := range closing {
			if err := d.paragraph(para, top); err != nil {
				return err
			}
			top += lh(para) + slipHeadGap
		}
	}
	return nil
}

// paragraph writes lines of running text from top down.
func (d *drawer) paragraph(lines []string, top float64) error {
	for i, s := range lines {
		if err := d.body(s, top+float64(i)*bodyLineH); err != nil {
			return err
		}
	}
	return nil
}
