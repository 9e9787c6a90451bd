package marc

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/readinglibrary/service/ports"
)

func TestMARC8ToUnicode(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain ASCII", "plain ASCII"},
		{"Mis\xe2erables", "Misérables"}, // acute before its letter
		{"\xe1a la communaut\xe2e", "à la communauté"},
		{"Gar\xe3con", "Garĉon"},   // circumflex
		{"Espa\xe4na", "España"},   // tilde
		{"M\xe8unchen", "München"}, // umlaut
		{"Gar\xf0con", "Garçon"},   // cedilla
		{"\xa2rsted \xb2l \xa5sop \xb5ble", "Ørsted øl Æsop æble"},
		{"\xa1\xe2od\xe2z", "Łódź"},
		{"Nguy\xe3\xe4en", "Nguyễn"}, // circumflex and tilde on one letter, kept in the file's order
		{"\xc3 1999", "© 1999"},
		{"\x88The\x89 Hobbit", "The Hobbit"}, // non-sort marks dropped
		{"H\x1bb2\x1bsO", "H₂O"},             // subscript escape and back
	}
	for _, c := range cases {
		got, err := marc8ToUTF8(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got = norm.NFC.String(got)
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMARC8OtherScriptsAreReported(t *testing.T) {
	cases := []struct{ in, script string }{
		{"\x1b(NPYSHKIN\x1b(B", "Cyrillic"},
		{"\x1b$1!0\x1b(B", "East Asian"},
		{"\x1b)2\xe0\xe1", "Hebrew"},
	}
	for _, c := range cases {
		if _, err := marc8ToUTF8(c.in); err == nil || !strings.Contains(err.Error(), c.script) {
			t.Errorf("%q: error %v, want one naming %s", c.in, err, c.script)
		}
	}
}

// A record is unreadable only when a field the import reads is in a script
// it does not convert: a Cyrillic 880 (alternate script) is ignored.
func TestOtherScriptOnlyMattersInFieldsRead(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso(' ',
		dat("245", "10", "aVojna i mir"),
		dat("880", "10", "6245-01", "a\x1b(NWOJNA I MIR\x1b(B"),
	))
	if h.Title != "Vojna i mir" {
		t.Errorf("title %q", h.Title)
	}
	_, problems := decodeAll(NewCodec(), ports.FormatMARC21, iso(' ', dat("245", "10", "a\x1b(NWOJNA I MIR\x1b(B")))
	if len(problems) != 1 || problems[0].Field != "245" || !strings.Contains(problems[0].Message, "Cyrillic") {
		t.Errorf("problems %+v", problems)
	}
}

func TestMARC8RecordMapsWithAccents(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso(' ',
		dat("100", "1 ", "aBront\xe8e, Charlotte."),
		dat("245", "10", "aJane Eyre /"),
		dat("260", "  ", "bGallimard,", "c1966."),
	))
	if h.Authors[0] != "Brontë, Charlotte" || h.Publisher != "Gallimard" || h.PublishedYear != 1966 {
		t.Errorf("record %+v", h)
	}
}

// Records whose leader says MARC-8 but whose accents are ISO 8859-1 (or
// Windows-1252) are read as such and say so; real MARC-8 is read without
// a notice; a record whose accents could be either is read as MARC-8 with
// a notice to check it.
func TestLatin1InRecordsFlaggedMARC8(t *testing.T) {
	cases := []struct {
		name, title, author string
		notice              string // "" for none
	}{
		// Latin-1 bytes, as a Swedish library's export wrote them
		// (testdata/filemarc_example.mrc holds the same title).
		{"Latin-1", "Det osynliga barnet och andra ber\xe4ttelser /", "Janssonov\xe1, Tove,", "read as Latin-1"},
		{"Latin-1 capital", "\xc9mile et les d\xe9tectives", "K\xe4stner, Erich", "read as Latin-1"},
		{"Windows-1252 apostrophe", "Don\x92t blame me", "Parker, Charlie", "read as Latin-1"},
		// The same French title in MARC-8: each diacritic before its letter.
		{"MARC-8", "Histoire du \"nouveau th\xe2e\xe3atre.\"", "Serreau, Genevi\xe1eve.", ""},
		// A grave accent typed for an apostrophe, again and again
		// (testdata/evergreen_jazz_1k.mrc, record 875).
		{"unsure", "I can\xe1t believe that you\xe1re in love", "Parker, Charlie", "check its accented letters"},
	}
	want := map[string][2]string{
		"Latin-1":                 {"Det osynliga barnet och andra berättelser", "Janssonová, Tove"},
		"Latin-1 capital":         {"Émile et les détectives", "Kästner, Erich"},
		"Windows-1252 apostrophe": {"Don’t blame me", "Parker, Charlie"},
		"MARC-8":                  {"Histoire du \"nouveau théâtre.\"", "Serreau, Geneviève"},
		"unsure":                  {"I cant\u0300 believe that your\u0300e in love", "Parker, Charlie"},
	}
	for _, c := range cases {
		h := decodeOne(t, ports.FormatMARC21, iso(' ', dat("100", "1 ", "a"+c.author), dat("245", "10", "a"+c.title)))
		w := want[c.name]
		if norm.NFC.String(h.Title) != norm.NFC.String(w[0]) || h.Authors[0] != w[1] {
			t.Errorf("%s: %q by %q, want %q by %q", c.name, h.Title, h.Authors[0], w[0], w[1])
		}
		switch {
		case c.notice == "" && len(h.Notices) != 0:
			t.Errorf("%s: notices %+v, want none", c.name, h.Notices)
		case c.notice != "" && (len(h.Notices) != 1 || !strings.Contains(h.Notices[0].Message, c.notice) || h.Notices[0].Line != 1):
			t.Errorf("%s: notices %+v, want one saying %q", c.name, h.Notices, c.notice)
		}
	}
}

// A record whose leader says UTF-8 but whose bytes are MARC-8 (a real
// export: testdata/rubymarc_marc8_accented_chars.marc) is read as MARC-8
// when its diacritics all make letters, and says so; one whose bytes fit
// neither is reported.
func TestMARC8InRecordsFlaggedUTF8(t *testing.T) {
	recs, problems := decodeAll(NewCodec(), ports.FormatMARC21, readTestdata(t, "rubymarc_marc8_accented_chars.marc"))
	if len(problems) != 0 || len(recs) != 1 {
		t.Fatalf("records %d, problems %+v", len(recs), problems)
	}
	h := recs[0]
	if h.Title != "Histoire du \"nouveau théâtre.\"" || h.Authors[0] != "Serreau, Geneviève" {
		t.Errorf("%q by %q", h.Title, h.Authors)
	}
	if len(h.Notices) == 0 || !strings.Contains(h.Notices[0].Message, "says it is in UTF-8, but its accented letters are MARC-8") {
		t.Errorf("notices %+v", h.Notices)
	}
}
