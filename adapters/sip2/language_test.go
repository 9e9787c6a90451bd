package sip2

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/selfcheck"
	"github.com/readinglibrary/service/core/user"
)

const sipTestNow = "20261202    101500"

func mustDecode(t *testing.T, msg string) Request {
	t.Helper()
	req, err := Decode([]byte(msg))
	if err != nil {
		t.Fatalf("Decode(%q): %v", msg, err)
	}
	return req
}

// kioskOf is a connection signed in for a school that speaks school ("" for
// one that chose none).
func kioskOf(school string) *conn {
	s := &Server{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time {
		return time.Date(2026, 12, 2, 10, 15, 0, 0, time.UTC)
	}}
	sess := &selfcheck.Session{School: library.School{Domain: "maple.example.org"}}
	sess.School.Settings.Language = school
	return &conn{s: s, sess: sess}
}

// An answer is said in the language its request asks for when the service
// speaks it, else in the patron's own, else in the school's; an answer
// with a language field names the one it is said in.
func TestAnswersLanguage(t *testing.T) {
	patronStatus := func(code string) string { return "23" + code + sipTestNow + "AOMGS|AAP1" }
	patronInfo := func(code string) string { return "63" + code + sipTestNow + "  Y       AOMGS|AAP1" }
	for _, tc := range []struct {
		name, msg        string
		personal, school string
		want             i18n.Lang
		code             string // the answer's language field ("" for none)
	}{
		{"ArabicAsked", patronInfo("016"), "es", "en", i18n.Arabic, "016"},
		{"SpanishAsked", patronStatus("008"), "", "ar", i18n.Spanish, "008"},
		{"NorthAmericanSpanishKeepsItsCode", patronStatus("021"), "", "", i18n.Spanish, "021"},
		{"EnglishAsked", patronStatus("001"), "es", "ar", i18n.English, "001"},
		{"UnknownGivesThePatrons", patronStatus("000"), "es", "ar", i18n.Spanish, "008"},
		{"NotSpokenGivesTheSchools", patronInfo("002"), "", "ar", i18n.Arabic, "016"},
		{"NothingChosen", patronStatus("000"), "", "", i18n.English, "001"},
		{"CheckoutThePatrons", "11YN" + sipTestNow + strings.Repeat(" ", 18) + "AOMGS|AAP1|ABB1", "ar", "es", i18n.Arabic, ""},
		{"CheckoutTheSchools", "11YN" + sipTestNow + strings.Repeat(" ", 18) + "AOMGS|AAP1|ABB1", "", "es", i18n.Spanish, ""},
		{"RenewTheSchools", "29NN" + sipTestNow + strings.Repeat(" ", 18) + "AOMGS|AAP1|ABB1", "", "ar", i18n.Arabic, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := mustDecode(t, tc.msg)
			patron := &user.Account{Preferences: user.Preferences{Language: tc.personal}}
			got := kioskOf(tc.school).lang(req, patron)
			if got != tc.want {
				t.Errorf("language %s, want %s", got, tc.want)
			}
			if tc.code != "" && langCode(req, got) != tc.code {
				t.Errorf("language field %q, want %q", langCode(req, got), tc.code)
			}
		})
	}
	// No patron known (a return, an unknown card): the school's.
	if got := kioskOf("es").lang(mustDecode(t, "09N"+sipTestNow+sipTestNow+"AOMGS|ABB1"), nil); got != i18n.Spanish {
		t.Errorf("a return at a Spanish school: %s", got)
	}
}

// A kiosk not signed in is told so in the language its patron request
// asks for, with that language's code; Arabic goes as UTF-8, its checksum
// counting its bytes as the decoder does.
func TestSignedOutAnswerInTheLanguageAsked(t *testing.T) {
	k := kioskOf("")
	k.sess = nil
	for _, tc := range []struct {
		msg, code, af string
	}{
		{"63016" + sipTestNow + "  Y       AOMGS|AAP1", "016", "الكشك غير مسجَّل الدخول."},
		{"23008" + sipTestNow + "AOMGS|AAP1", "008", "El quiosco no ha iniciado sesión."},
		{"23000" + sipTestNow + "AOMGS|AAP1", "001", "The kiosk is not signed in."},
	} {
		req := mustDecode(t, tc.msg)
		r := k.signedOut(req)
		if got := r.Fixed[14:17]; got != tc.code {
			t.Errorf("%q: language field %q, want %q", tc.msg, got, tc.code)
		}
		out := string(r.Encode(3))
		if !strings.Contains(out, "AF"+tc.af+"|") {
			t.Errorf("%q: %q, want the screen message %q", tc.msg, out, tc.af)
		}
		msg := strings.TrimSuffix(out, "\r")
		if sum := msg[len(msg)-4:]; sum != Checksum(msg[:len(msg)-4]) {
			t.Errorf("%q: checksum %s does not verify", tc.msg, sum)
		}
	}
}

// An Arabic screen message written by Encode decodes to the same text
// with a checksum that verifies.
func TestArabicTextRoundTrips(t *testing.T) {
	text := i18n.Arabic.T("Returned. Thank you.")
	r := Response{Code: CodeItemInfo, Fixed: sipTestNow}
	r.Add("AB", "B1").Add("AF", text)
	req, err := Decode([]byte(strings.TrimSuffix(string(r.Encode(2)), "\r")))
	if err != nil || !req.Checked || req.Seq != 2 || req.Value("AF") != text {
		t.Fatalf("decoded %+v, %v; want AF %q with a checksum that verifies", req, err, text)
	}
}

// A refusal is the use case's sentence in the language; a failure of the
// service the general one, in it too. A due date is written as the
// language writes it; English keeps the date kiosks have always shown.
func TestScreenMessagesInTheLanguage(t *testing.T) {
	k := kioskOf("")
	if got := k.message(i18n.Spanish, library.ErrStudentNotFound()); got != i18n.Spanish.T("The student does not exist in this school.") || got == "The student does not exist in this school." {
		t.Errorf("a refusal in Spanish: %q", got)
	}
	if got := k.message(i18n.English, library.ErrStudentNotFound()); got != "The student does not exist in this school." {
		t.Errorf("a refusal in English: %q", got)
	}
	if got := k.message(i18n.Arabic, errs.E(errs.Internal, "", "boom")); got != "تعذّر على نظام المكتبة تنفيذ ذلك الآن؛ يُرجى مراجعة أمين المكتبة." {
		t.Errorf("a failure in Arabic: %q", got)
	}
	for lang, want := range map[i18n.Lang]string{
		i18n.English: "Due 2026-12-16.",
		i18n.Spanish: "Vence el 16 de diciembre de 2026.",
		i18n.Arabic:  "موعد الإرجاع ١٦ ديسمبر ٢٠٢٦.",
	} {
		if got := lang.T("Due %s.", dueText(lang, "2026-12-16")); got != want {
			t.Errorf("due in %s: %q, want %q", lang, got, want)
		}
	}
}
