package webapp

import (
	"strings"
	"unicode"

	"github.com/readinglibrary/service/core/i18n"
)

// pageTexts are the texts the pages' script (static/app.js) shows, in the
// page's language. The script cannot ask the catalogues, so the layout
// hands them over as data: a <script type="application/json"
// id="page-texts"> block, which html/template writes as JSON and which the
// browser never runs (the page's CSP allows it).
type pageTexts struct {
	// Texts maps each English text the script shows (a catalogue key,
	// written in app.js as it is here) to the page's language. Where the
	// key has its first, second… %s the text has {1}, {2}…, which the
	// script fills in: a translation that puts them in another order keeps
	// them right.
	Texts map[string]string `json:"texts"`
	// Digits are 0 to 9 as the language writes a count, and Group the
	// mark between its thousands, so that the script's counts look like
	// the ones the pages write (i18n.Lang.Number).
	Digits []string `json:"digits"`
	Group  string   `json:"group"`
}

// The places of the script's values in its texts.
const slot1, slot2, slot3 = "{1}", "{2}", "{3}"

// newPageTexts returns the script's texts in lang.
//
// A count the script fills in is a string here (it has no count to give
// tr), so a text keeps one form per English form ("1 student matches." and
// "%s students match."): the Arabic ones are phrased to hold any number
// ("عدد الطلاب المطابقين: %s"), not as plural objects, which need a count
// formatted in Go.
//
// They depend on the language alone, so New says them once for each
// language (App.texts) rather than on every page.
func newPageTexts(lang i18n.Lang) pageTexts {
	texts := map[string]string{
		// The student's standing, once the desk's student field names one
		// student.
		"This student has %s.":                 lang.T("This student has %s.", slot1),
		"This student has %s and %s.":          lang.T("This student has %s and %s.", slot1, slot2),
		"%s in open charges":                   lang.T("%s in open charges", slot1),
		"1 claimed return":                     lang.T("1 claimed return"),
		"%s claimed returns":                   lang.T("%s claimed returns", slot1),
		"This student may not borrow: %s.":     lang.T("This student may not borrow: %s.", slot1),
		"%s; %s":                               lang.T("%s; %s", slot1, slot2),
		"1 overdue item (the limit is %s)":     lang.T("1 overdue item (the limit is %s)", slot1),
		"%s overdue items (the limit is %s)":   lang.T("%s overdue items (the limit is %s)", slot1, slot2),
		"%s in open charges (the limit is %s)": lang.T("%s in open charges (the limit is %s)", slot1, slot2),
		// The student lookup, read out by screen readers.
		"1 student matches.": lang.T("1 student matches."),
		"%s students match.": lang.T("%s students match.", slot1),
		// The offline desk.
		"Check-out":   lang.T("Check-out"),
		"scan|Return": lang.T("scan|Return"),
		"The server cannot be reached. Scans are kept on this computer (%s waiting) and uploaded when it answers; the loans list below may be out of date.": lang.T("The server cannot be reached. Scans are kept on this computer (%s waiting) and uploaded when it answers; the loans list below may be out of date.", slot1),
		"%s: put it aside for %s, who holds this book.":                                                                          lang.T("%s: put it aside for %s, who holds this book.", slot1, slot2),
		"%s: put it aside for %s, %s, who holds this book.":                                                                      lang.T("%s: put it aside for %s, %s, who holds this book.", slot1, slot2, slot3),
		"Uploaded 1 offline scan: %s done.":                                                                                      lang.T("Uploaded 1 offline scan: %s done.", slot1),
		"Uploaded %s offline scans: %s done.":                                                                                    lang.T("Uploaded %s offline scans: %s done.", slot1, slot2),
		"Uploaded 1 offline scan: %s done, %s to settle on the Offline scans page.":                                              lang.T("Uploaded 1 offline scan: %s done, %s to settle on the Offline scans page.", slot1, slot2),
		"Uploaded %s offline scans: %s done, %s to settle on the Offline scans page.":                                            lang.T("Uploaded %s offline scans: %s done, %s to settle on the Offline scans page.", slot1, slot2, slot3),
		"Reload the desk to see the loans as they are now.":                                                                      lang.T("Reload the desk to see the loans as they are now."),
		"The server answers again.":                                                                                              lang.T("The server answers again."),
		"Sign in again to upload the %s scans kept on this computer. They stay here until then.":                                 lang.T("Sign in again to upload the %s scans kept on this computer. They stay here until then.", slot1),
		"The server refused the upload (%s). The scans stay on this computer.":                                                   lang.T("The server refused the upload (%s). The scans stay on this computer.", slot1),
		"The server cannot be reached: the scan is kept on this computer.":                                                       lang.T("The server cannot be reached: the scan is kept on this computer."),
		"The server cannot be reached, and a damaged return needs it: set the copy aside and return it when the server answers.": lang.T("The server cannot be reached, and a damaged return needs it: set the copy aside and return it when the server answers."),
		"The server cannot be reached: scan the copy and type the student's number to keep a check-out.":                         lang.T("The server cannot be reached: scan the copy and type the student's number to keep a check-out."),
	}
	digits := make([]string, 10)
	for i := range digits {
		digits[i] = lang.Number(int64(i))
	}
	// The mark between thousands: what a thousand has besides its digits.
	group := strings.Map(func(c rune) rune {
		if unicode.IsDigit(c) {
			return -1
		}
		return c
	}, lang.Number(1000))
	return pageTexts{Texts: texts, Digits: digits, Group: group}
}
