package sip2

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sample is one message of testdata/*.tsv, made by another system.
type sample struct {
	origin, direction, checksum, source, msg string
}

func samples(t testing.TB) []sample {
	t.Helper()
	files, err := filepath.Glob("testdata/*.tsv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	var out []sample
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if len(cols) != 4 {
				t.Fatalf("%s: %q has %d columns", f, line, len(cols))
			}
			var msg string
			if err := json.Unmarshal([]byte(cols[3]), &msg); err != nil {
				t.Fatalf("%s: %q: %v", f, cols[3], err)
			}
			out = append(out, sample{strings.TrimSuffix(filepath.Base(f), ".tsv"), cols[0], cols[1], cols[2], msg})
		}
	}
	return out
}

// TestChecksumOfOtherSystems: every message the other systems wrote with
// a checksum that verifies gets the same checksum here, and the ones
// their authors got wrong do not; the two vectors Koha's tests give agree.
func TestChecksumOfOtherSystems(t *testing.T) {
	for _, v := range []struct{ in, want string }{{"12345", "FF01"}, {"teststring", "FBA9"}} {
		if got := Checksum(v.in); got != v.want {
			t.Errorf("Checksum(%q) = %s, want %s", v.in, got, v.want)
		}
	}
	var valid, invalid int
	for _, s := range samples(t) {
		sum, ok := trailingChecksum(s.msg)
		if !ok {
			continue
		}
		match := Checksum(s.msg[:len(s.msg)-4]) == sum
		switch {
		case strings.HasPrefix(s.checksum, "valid"):
			valid++
			if !match {
				t.Errorf("%s %s: %q: checksum %s, computed %s", s.origin, s.source, s.msg, sum, Checksum(s.msg[:len(s.msg)-4]))
			}
		case strings.HasPrefix(s.checksum, "INVALID"):
			invalid++
			if match {
				t.Errorf("%s %s: %q: a checksum its origin got wrong verifies", s.origin, s.source, s.msg)
			}
		}
	}
	if valid < 50 || invalid < 5 {
		t.Errorf("%d verifying and %d damaged checksums among the samples, want at least 50 and 5", valid, invalid)
	}
}

// TestDecodeRequestsOfOtherSystems decodes every request the other
// systems' clients made: those with a checksum that verifies as checked,
// with their sequence number; those without one as unchecked; the damaged
// ones refused with a request to send again.
func TestDecodeRequestsOfOtherSystems(t *testing.T) {
	codes := map[string]int{}
	for _, s := range samples(t) {
		if s.direction != "request" {
			continue
		}
		req, err := Decode([]byte(s.msg))
		switch {
		case strings.HasPrefix(s.checksum, "INVALID"):
			var de *DecodeError
			if !errors.As(err, &de) || !de.Resend {
				t.Errorf("%s %s: %q: %v, want a refusal asking to send it again", s.origin, s.source, s.msg, err)
			}
			continue
		case err != nil:
			t.Errorf("%s %s: %q: %v", s.origin, s.source, s.msg, err)
			continue
		}
		// AY, when sent, is just before AZ and its four digits.
		sequenced := strings.Contains(s.msg[max(0, len(s.msg)-9):], "AY")
		if checked := strings.HasPrefix(s.checksum, "valid"); req.Checked != checked || (req.Seq >= 0) != sequenced {
			t.Errorf("%s %s: %q: checked %v, sequence %d; want checked %v, a sequence number %v", s.origin, s.source, s.msg, req.Checked, req.Seq, checked, sequenced)
		}
		if n, known := fixedLength[req.Code]; known {
			codes[req.Code]++
			if len(req.Fixed) != n {
				t.Errorf("%s %s: %q: %d fixed characters, want %d", s.origin, s.source, s.msg, len(req.Fixed), n)
			}
			// The institution is in every request of these but the
			// login, the status and the resend.
			if _, ok := req.Get("AO"); !ok && !slices.Contains([]string{CodeLogin, CodeSCStatus, CodeResend}, req.Code) {
				t.Errorf("%s %s: %q: no AO field in %v", s.origin, s.source, s.msg, req.Fields)
			}
		}
	}
	for code := range fixedLength {
		if codes[code] == 0 {
			t.Errorf("no request %s among the samples decoded", code)
		}
	}
}

// The fields of a request as the kiosks send them, each way they do.
func TestDecodeFields(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		seq       int
		fields    []Field
	}{
		{"Checkout", "11YN20261202    101500                  AOSCHOOL|AAP0001|ABB0001|ACtermpw|AD1234|AY5AZEBC8", 5,
			[]Field{{"AO", "SCHOOL"}, {"AA", "P0001"}, {"AB", "B0001"}, {"AC", "termpw"}, {"AD", "1234"}}},
		{"NoLastBar", "1720261202    101500AOSCHOOL|ABB0001", -1, []Field{{"AO", "SCHOOL"}, {"AB", "B0001"}}},
		{"EmptyFields", "2300120261202    101500AO|AAP0001|AC|AD|", -1, []Field{{"AO", ""}, {"AA", "P0001"}, {"AC", ""}, {"AD", ""}}},
		{"SequenceRightAfterFixed", "9900802.00AY1AZFCA0", 1, nil},
		{"BarBeforeSequence", "9900402.00|AY1AZFC28", 1, nil},
		{"SequenceWithoutChecksum", "9900402.00|AY3", 3, nil},
		{"ResendNoFixed", "97AZFEF5", -1, nil},
		{"LowerCaseChecksum", "9900402.00|AY1AZfc28", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Decode([]byte(tc.msg))
			if err != nil {
				t.Fatal(err)
			}
			if req.Seq != tc.seq || !slices.Equal(req.Fields, tc.fields) {
				t.Errorf("sequence %d, fields %v; want %d, %v", req.Seq, req.Fields, tc.seq, tc.fields)
			}
		})
	}
}

func TestDecodeRefusesMalformed(t *testing.T) {
	for _, tc := range []struct{ name, msg, reason string }{
		{"Empty", "", "no code"},
		{"NotDigits", "AB00", "not two digits"},
		{"ShortFixed", "11YN2026", "fixed fields"},
		{"NoIdentifier", "1720261202    101500AOSCHOOL|B", "identifier"},
		{"BadIdentifier", "1720261202    101500AOSCHOOL|#!x", "identifier"},
		{"ControlInField", "1720261202    101500AOSCH\x00OOL|", "control character"},
		{"ControlInFixed", "11YN2026\x01202    101500                  AOSCHOOL|", "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.msg))
			var de *DecodeError
			if !errors.As(err, &de) || de.Resend || !strings.Contains(de.Reason, tc.reason) {
				t.Errorf("Decode(%q) = %v, want a refusal about %q that does not ask to resend", tc.msg, err, tc.reason)
			}
		})
	}
	// An unknown code decodes as far as the code, for the caller to
	// answer that it is not supported.
	req, err := Decode([]byte("01N20210814    083455AO|AL|AApatronId|AC|AY0AZF34D"))
	if err != nil || req.Code != "01" || req.Fixed != "" {
		t.Errorf("an unsupported message: %+v, %v", req, err)
	}
}

func TestReadMessage(t *testing.T) {
	in := "9900402.00|AY1AZFC28\r\n1720261202    101500AOSCHOOL|ABB0001|\r" + strings.Repeat("x", MaxMessage+1) + "\r"
	r := bufio.NewReader(strings.NewReader(in))
	for _, want := range []string{"9900402.00|AY1AZFC28", "1720261202    101500AOSCHOOL|ABB0001|"} {
		got, err := ReadMessage(r)
		if err != nil || string(got) != want {
			t.Fatalf("ReadMessage = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := ReadMessage(r); !errors.Is(err, ErrTooLong) {
		t.Errorf("a message past %d bytes: %v, want ErrTooLong", MaxMessage, err)
	}
	if _, err := ReadMessage(bufio.NewReader(strings.NewReader("99004"))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a connection closed inside a message: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := ReadMessage(bufio.NewReader(strings.NewReader(""))); err != io.EOF {
		t.Errorf("a connection closed between messages: %v, want io.EOF", err)
	}
}

// TestEncode: an answer carries the request's sequence number and a
// checksum that verifies, and a value cannot break the framing.
func TestEncode(t *testing.T) {
	r := Response{Code: "18", Fixed: "030200" + "20261202    101500"}
	r.Add("AB", "B0001").Add("AJ", "Pipes | and\rreturns")
	got := string(r.Encode(4))
	want := "18030200" + "20261202    101500" + "ABB0001|AJPipes   and returns|AY4AZ"
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "\r") {
		t.Fatalf("Encode = %q, want %q then the checksum and CR", got, want)
	}
	msg := strings.TrimSuffix(got, "\r")
	if sum := msg[len(msg)-4:]; sum != Checksum(msg[:len(msg)-4]) {
		t.Errorf("checksum %s does not verify", sum)
	}
	if got := string((Response{Code: "94", Fixed: "1"}).Encode(-1)); got != "941\r" {
		t.Errorf("without error detection: %q, want %q", got, "941\r")
	}
}

// FuzzDecode: any bytes decode or are refused without a panic, and a
// request that decodes comes out the same when written back with its
// sequence number and a new checksum.
func FuzzDecode(f *testing.F) {
	for _, s := range samples(f) {
		f.Add([]byte(s.msg))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		req, err := Decode(msg)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%q) = %v, not a *DecodeError", msg, err)
			}
			return
		}
		if _, known := fixedLength[req.Code]; !known {
			return
		}
		back := Response{Code: req.Code, Fixed: req.Fixed, Fields: req.Fields}
		again, err := Decode([]byte(strings.TrimSuffix(string(back.Encode(max(req.Seq, 0))), "\r")))
		if err != nil {
			t.Fatalf("Decode(%q) = %+v, but written back it is refused: %v", msg, req, err)
		}
		if again.Code != req.Code || again.Fixed != req.Fixed || !slices.Equal(again.Fields, req.Fields) || again.Seq != max(req.Seq, 0) {
			t.Fatalf("Decode(%q) = %+v; written back and decoded: %+v", msg, req, again)
		}
	})
}
