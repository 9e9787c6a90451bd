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
	_, problems := NewCodec().DecodeAll(ports.FormatMARC21, iso(' ', dat("245", "10", "a\x1b(NWOJNA I MIR\x1b(B")))
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
