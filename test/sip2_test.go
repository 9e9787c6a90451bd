package test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sip2"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/test/tlscert"
)

// kioskConn is a scripted self-check kiosk: it writes SIP2 requests as
// the kiosks of other systems write them and reads the answers.
type kioskConn struct {
	t   *testing.T
	c   net.Conn
	r   *bufio.Reader
	seq int
}

func dialKiosk(t *testing.T, addr string) *kioskConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &kioskConn{t: t, c: c, r: bufio.NewReader(c)}
}

// send writes body with the next sequence number and its checksum, then
// reads the answer (without its CR).
func (k *kioskConn) send(body string) string {
	k.t.Helper()
	msg := body + "|AY" + fmt.Sprint(k.seq%10) + "AZ"
	k.seq++
	return k.raw(msg + sip2.Checksum(msg))
}

// raw writes msg as it is and reads the answer.
func (k *kioskConn) raw(msg string) string {
	k.t.Helper()
	_ = k.c.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := k.c.Write([]byte(msg + "\r")); err != nil {
		k.t.Fatal(err)
	}
	answer, err := k.r.ReadString('\r')
	if err != nil {
		k.t.Fatalf("no answer to %q: %v", msg, err)
	}
	answer = strings.TrimSuffix(answer, "\r")
	// Every answer to a checked request carries its sequence number and a
	// checksum that verifies.
	if n := len(answer); strings.Contains(msg, "AZ") && (n < 8 || answer[n-6:n-4] != "AZ" || sip2.Checksum(answer[:n-4]) != answer[n-4:]) {
		k.t.Fatalf("answer %q to %q: no checksum that verifies", answer, msg)
	}
	return answer
}

// sipFixed is the length of the fixed fields of each SIP2 answer.
var sipFixed = map[string]int{"94": 1, "98": 34, "24": 35, "64": 59, "18": 24, "12": 22, "10": 22, "30": 22, "36": 19}

// sipField returns the value of field id in a SIP2 answer ("" if absent).
func sipField(answer, id string) string {
	if len(answer) < 2 || len(answer) < 2+sipFixed[answer[:2]] {
		return ""
	}
	for _, part := range strings.Split(answer[2+sipFixed[answer[:2]]:], "|") {
		if strings.HasPrefix(part, id) {
			return part[len(id):]
		}
	}
	return ""
}

const sipNow = "20261202    101500"

// newKiosk makes a kiosk for tok's school (schoolID for an admin) and
// returns its login and password.
func newKiosk(t *testing.T, s *service, tok, query, login string) (string, string) {
	t.Helper()
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/kiosks" + query, Token: tok, Body: fmt.Sprintf(`{"name":"Entrance kiosk","login":%q}`, login)})
	if r.Status != 201 {
		t.Fatalf("make kiosk %s: %d %s", login, r.Status, r.Body)
	}
	body := r.json(t)
	return body["kiosk"].(map[string]any)["login"].(string), body["password"].(string)
}

// TestSIP2KioskSession is one kiosk's session, as a self-check machine
// runs it: sign-in, status, a student and a copy looked up, a check-out
// (answered again, not repeated, when the kiosk sends it twice), a
// renewal and a return, each seen by the desk's API; then refusals.
func TestSIP2KioskSession(t *testing.T) {
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0"})
	s := w.s
	addr := s.sip2Addr()
	if addr == "" {
		t.Fatal("the service has no SIP2 listener")
	}
	login, password := newKiosk(t, s, w.libA, "", "Entrance-1")
	if login != "entrance-1" {
		t.Errorf("login %q, want it in lower case", login)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: `{"name":"Kim Kiosk","student_number":"K-100"}`}); r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"The Self-Check Mystery","author":"Ada Kiosk","copies":1}`)
	code := copies[0]["code"].(string)
	loansOf := func() []any {
		return s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: w.libA}).json(t)["loans"].([]any)
	}

	k := dialKiosk(t, addr)
	if got := k.send("9300CN" + login + "|CO" + "wrong-password" + "|CPMAIN"); !strings.HasPrefix(got, "940") {
		t.Fatalf("sign-in with a wrong password: %q, want 940", got)
	}
	if got := k.send("1720261202    101500AOMGS|AB" + code); !strings.Contains(got, "AFThe kiosk is not signed in.") {
		t.Fatalf("item information before signing in: %q, want a refusal", got)
	}
	if got := k.send("9300CN" + strings.ToUpper(login) + "|CO" + password + "|CPMAIN"); !strings.HasPrefix(got, "941") {
		t.Fatalf("sign-in: %q, want 941", got)
	}
	status := k.send("9900402.00")
	if !strings.HasPrefix(status, "98YYYY") || !strings.Contains(status, "|AMMaple") || sipField(status, "BX") != "YYYNYYYYYNYNNNYN" || !strings.Contains(status, "2.00AO") {
		t.Fatalf("status: %q", status)
	}

	patron := k.send("23001" + sipNow + "AOMGS|AAK-100|AC|AD")
	if sipField(patron, "AE") != "Kim Kiosk" || sipField(patron, "BL") != "Y" || patron[2:16] != strings.Repeat(" ", 14) {
		t.Fatalf("patron status: %q", patron)
	}
	if got := k.send("23001" + sipNow + "AOMGS|AANO-SUCH|AC|AD"); sipField(got, "BL") != "N" || !strings.HasPrefix(got, "24YYYY") {
		t.Fatalf("an unknown card: %q, want not valid and every privilege denied", got)
	}
	if got := k.send("17" + sipNow + "AOMGS|AB" + code); !strings.HasPrefix(got, "1803") || sipField(got, "AJ") != "The Self-Check Mystery" {
		t.Fatalf("item information of a copy on the shelf: %q, want status 03 and its title", got)
	}

	checkout := "11YN" + sipNow + strings.Repeat(" ", 18) + "AOMGS|AAK-100|AB" + code + "|AC|AD"
	out := k.send(checkout)
	if !strings.HasPrefix(out, "121NUY") || sipField(out, "AH") == "" {
		t.Fatalf("check-out: %q, want ok with a due date", out)
	}
	if loans := loansOf(); len(loans) != 1 {
		t.Fatalf("after the kiosk's check-out the desk sees %d loans of the book, want 1", len(loans))
	}
	// The kiosk missed the answer and sends the same request again, same
	// sequence number: the same answer comes back, and no second loan.
	k.seq--
	if again := k.send(checkout); again != out {
		t.Fatalf("the check-out sent again: %q, want the first answer %q", again, out)
	}
	// 97 asks for the last answer again.
	if got := k.send("97"); got != out {
		t.Fatalf("a request to resend: %q, want %q", got, out)
	}
	if got := k.send("17" + sipNow + "AOMGS|AB" + code); !strings.HasPrefix(got, "1804") || sipField(got, "AH") != sipField(out, "AH") {
		t.Fatalf("item information of the lent copy: %q, want status 04 due %s", got, sipField(out, "AH"))
	}
	info := k.send("63001" + sipNow + "  Y       AOMGS|AAK-100|AC|AD|BP1|BQ5")
	if info[45:49] != "0001" || sipField(info, "AU") != code {
		t.Fatalf("patron information: %q, want one charged item, %s", info, code)
	}
	renewed := k.send("29NN" + sipNow + strings.Repeat(" ", 18) + "AOMGS|AAK-100|AB" + code + "|AC")
	if !strings.HasPrefix(renewed, "301YUY") || sipField(renewed, "AH") <= sipField(out, "AH") {
		t.Fatalf("renewal: %q, want ok with a later due date than %s", renewed, sipField(out, "AH"))
	}
	if got := k.send("11YN" + sipNow + strings.Repeat(" ", 18) + "AOMGS|AAK-100|ABNO-SUCH-COPY|AC"); !strings.HasPrefix(got, "120") || sipField(got, "AF") == "" {
		t.Fatalf("check-out of an unknown copy: %q, want refused with a message", got)
	}
	in := k.send("09N" + sipNow + sipNow + "APMAIN|AOMGS|AB" + code + "|AC")
	if !strings.HasPrefix(in, "101YUN") {
		t.Fatalf("check-in: %q, want ok", in)
	}
	if loans := loansOf(); len(loans) != 0 {
		t.Fatalf("after the kiosk's check-in the desk sees %d active loans of the book, want 0", len(loans))
	}
	if got := k.send("09N" + sipNow + sipNow + "APMAIN|AOMGS|AB" + code + "|AC"); !strings.HasPrefix(got, "100") {
		t.Fatalf("a second check-in: %q, want refused (not on loan)", got)
	}
	// A damaged message is asked for again; an unknown kind is not done.
	if got := k.raw("9900402.00|AY5AZ0000"); got != "96AZFEF6" {
		t.Fatalf("a message whose checksum does not match: %q, want 96AZFEF6", got)
	}

	// Another school's kiosk does not see this school's copies.
	otherLogin, otherPassword := newKiosk(t, s, w.admin, "?schoolId="+w.schoolB, "riverside-1")
	other := dialKiosk(t, addr)
	if got := other.send("9300CN" + otherLogin + "|CO" + otherPassword + "|CP"); got[:3] != "941" {
		t.Fatalf("other school's kiosk sign-in: %q", got)
	}
	if got := other.send("17" + sipNow + "AORS|AB" + code); !strings.HasPrefix(got, "1801") || sipField(got, "AJ") != "" {
		t.Fatalf("another school's copy from this kiosk: %q, want unknown", got)
	}

	// A kiosk the librarian removes is signed out at its next request,
	// and cannot sign in again.
	kiosks := s.do(req{Path: "/api/library/kiosks", Token: w.libA}).json(t)["kiosks"].([]any)
	if len(kiosks) != 1 {
		t.Fatalf("school A lists %d kiosks, want 1", len(kiosks))
	}
	id := kiosks[0].(map[string]any)["id"].(string)
	if r := s.do(req{Method: http.MethodDelete, Path: "/api/library/kiosks/" + id, Token: w.libB}); r.Status != 404 {
		t.Fatalf("another school's librarian removing the kiosk: %d, want 404", r.Status)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/api/library/kiosks/" + id, Token: w.libA}); r.Status != 204 {
		t.Fatalf("remove the kiosk: %d %s", r.Status, r.Body)
	}
	if got := k.send("17" + sipNow + "AOMGS|AB" + code); !strings.Contains(got, "AFThe kiosk is not signed in.") {
		t.Fatalf("a removed kiosk's request: %q, want it signed out", got)
	}
	if got := k.send("9300CN" + login + "|CO" + password + "|CP"); !strings.HasPrefix(got, "940") {
		t.Fatalf("a removed kiosk signing in: %q, want 940", got)
	}

	// Three wrong passwords on one connection close it: a guesser gets no
	// more tries there.
	guesser := dialKiosk(t, addr)
	for i := range 3 {
		if got := guesser.send("9300CN" + otherLogin + "|COguess-" + fmt.Sprint(i) + "|CP"); got != "940" && !strings.HasPrefix(got, "940AY") {
			t.Fatalf("wrong password %d: %q, want 940", i+1, got)
		}
	}
	_ = guesser.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := guesser.r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("after three wrong passwords the connection read %v, want it closed (EOF)", err)
	}
}

// TestSIP2SpeaksThePatronsLanguage: a kiosk's screen messages are in the
// patron's language. A check-out (which names no language) for a student
// who chose Spanish says its due date in Spanish, as Spanish writes it; a
// patron information request asking for Arabic (016) is answered in
// Arabic and says 016, one asking for none (000) in the student's Spanish
// with 008; and a return, which names no patron, is thanked in the
// school's language.
func TestSIP2SpeaksThePatronsLanguage(t *testing.T) {
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0"})
	s := w.s
	login, password := newKiosk(t, s, w.libA, "", "hall-1")
	const email, studentPassword = "lola.kiosk@maplegrove.example.org", "violet-harbor-lamp-42"
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":"Lola Quiosco","email":%q,"password":%q,"student_number":"ES-100"}`, email, studentPassword)}); r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: s.login(email, studentPassword).Access,
		Body: `{"preferences":{"language":"es"}}`}); r.Status != 200 {
		t.Fatalf("the student chooses Spanish: %d %s", r.Status, r.Body)
	}
	_, copies := w.addBook(t, w.libA, `{"title":"El misterio del quiosco","author":"Ada Kiosk","copies":1}`)
	code := copies[0]["code"].(string)

	k := dialKiosk(t, s.sip2Addr())
	if got := k.send("9300CN" + login + "|CO" + password + "|CPMAIN"); !strings.HasPrefix(got, "941") {
		t.Fatalf("sign-in: %q, want 941", got)
	}
	out := k.send("11YN" + sipNow + strings.Repeat(" ", 18) + "AOMGS|AAES-100|AB" + code + "|AC")
	due, err := time.Parse("20060102", strings.TrimSuffix(sipField(out, "AH"), "    235959"))
	if !strings.HasPrefix(out, "121") || err != nil {
		t.Fatalf("check-out: %q, want ok with a due date", out)
	}
	if want := "Vence el " + i18n.Spanish.Date(due) + "."; sipField(out, "AF") != want {
		t.Errorf("the Spanish student's check-out says %q, want %q", sipField(out, "AF"), want)
	}
	if got := sipField(k.send("11YN"+sipNow+strings.Repeat(" ", 18)+"AOMGS|AAES-100|ABNO-SUCH-COPY|AC"), "AF"); got != i18n.Spanish.T("The copy does not exist.") || !strings.Contains(got, "ejemplar") {
		t.Errorf("the Spanish student's check-out of an unknown copy says %q, want it in Spanish", got)
	}

	// The language field of 24 and 64 follows the 14 status flags.
	langField := func(answer string) string { return answer[16:19] }
	arabic := k.send("63016" + sipNow + "  Y       AOMGS|AAES-100|AC|AD")
	if langField(arabic) != "016" || sipField(arabic, "AU") != code {
		t.Errorf("patron information asking for Arabic: %q, want language 016 and the copy lent", arabic)
	}
	unknown := k.send("63016" + sipNow + "          AOMGS|AANO-SUCH-CARD|AC|AD")
	if langField(unknown) != "016" || sipField(unknown, "AF") != "الطالب غير موجود في هذه المدرسة." {
		t.Errorf("patron information asking for Arabic of an unknown card: %q, want language 016 and the refusal in Arabic", unknown)
	}
	if got := k.send("23000" + sipNow + "AOMGS|AAES-100|AC|AD"); langField(got) != "008" {
		t.Errorf("patron status asking for no language: %q, want the student's Spanish, 008", got)
	}
	if got := k.send("23001" + sipNow + "AOMGS|AAES-100|AC|AD"); langField(got) != "001" {
		t.Errorf("patron status asking for English: %q, want 001", got)
	}

	// A return names no patron: the school's language, English here.
	if got := sipField(k.send("09N"+sipNow+sipNow+"APMAIN|AOMGS|AB"+code+"|AC"), "AF"); got != "Returned. Thank you." {
		t.Errorf("the return says %q, want the school's English", got)
	}
}

// TestKioskAPIRefusals: bad kiosk requests are refused with the field at
// fault and change nothing; a taken login is a conflict.
func TestKioskAPIRefusals(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	newKiosk(t, s, w.libA, "", "front")
	for _, tc := range []struct {
		name, body  string
		status      int
		code, field string
	}{
		{"LoginTaken", `{"name":"Second","login":"FRONT"}`, 409, "kiosk_login_taken", ""},
		{"LoginWithBar", `{"name":"Pipe","login":"a|b"}`, 422, "validation_failed", "login"},
		{"LoginTooLong", `{"name":"Long","login":"` + strings.Repeat("k", 41) + `"}`, 422, "validation_failed", "login"},
		{"NoName", `{"name":"  ","login":"nameless"}`, 422, "validation_failed", "name"},
		{"UnknownField", `{"name":"X","login":"x1","password":"mine"}`, 422, "validation_failed", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(req{Method: http.MethodPost, Path: "/api/library/kiosks", Token: w.libA, Body: tc.body})
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			code, details := r.apiError(t)
			if code != tc.code {
				t.Errorf("code %q, want %q", code, tc.code)
			}
			if fields, _ := details["fields"].(map[string]any); tc.field != "" && fields[tc.field] == nil {
				t.Errorf("details %v, want field %s", details, tc.field)
			}
		})
	}
	if ks := s.do(req{Path: "/api/library/kiosks", Token: w.libA}).json(t)["kiosks"].([]any); len(ks) != 1 {
		t.Errorf("%d kiosks after the refusals, want 1", len(ks))
	}
}

// TestSIP2OutsideClient runs a kiosk session with sip2-async, a SIP2
// client for Node.js written elsewhere (test/sip2client), unchanged: its
// requests are as a real kiosk's library writes them, and its parser reads
// the answers. Without Node.js the test is skipped, unless
// LIBRARY_TEST_SIP2_CLIENT=required (CI), when it fails.
func TestSIP2OutsideClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("LIBRARY_TEST_SIP2_CLIENT") == "required" {
			t.Fatal("LIBRARY_TEST_SIP2_CLIENT=required and no node on PATH")
		}
		t.Skip("no Node.js to run the outside SIP2 client")
	}
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0"})
	s := w.s
	login, password := newKiosk(t, s, w.libA, "", "outside-client")
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: `{"name":"Otto Outside","student_number":"OUT-7"}`}); r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Borrowed Elsewhere","author":"Nod E. Client","copies":1}`)
	code := copies[0]["code"].(string)
	host, port, _ := net.SplitHostPort(s.sip2Addr())
	for _, term := range []string{"", "--crlf"} {
		t.Run("Terminator"+term, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "session.mjs", host, port, login, password, "OUT-7", code, term)
			cmd.Dir = "sip2client"
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the client: %v\n%s", err, out)
			}
			got := map[string]map[string]any{}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var step struct {
					Step   string         `json:"step"`
					Answer map[string]any `json:"answer"`
				}
				if err := json.Unmarshal([]byte(line), &step); err != nil {
					t.Fatalf("client output %q: %v", line, err)
				}
				got[step.Step] = step.Answer
			}
			want := []struct {
				step, key string
				value     any
			}{
				{"login", "ok", true},
				{"status", "onLineStatus", true},
				{"status", "checkoutOk", true},
				{"patron", "fullName", "Otto Outside"},
				{"patron", "validPatron", true},
				{"item", "title", "Borrowed Elsewhere"},
				{"item", "status", "Available"},
				{"checkout", "ok", true},
				{"checkout", "itemId", code},
				{"renew", "ok", true},
				{"checkin", "ok", true},
			}
			for _, c := range want {
				if v := got[c.step][c.key]; v != c.value {
					t.Errorf("%s: %s = %v, want %v (answer %v)", c.step, c.key, v, c.value, got[c.step])
				}
			}
			if due, _ := got["checkout"]["dueDate"].(string); due == "" {
				t.Errorf("checkout: no due date the client could read: %v", got["checkout"])
			}
			// The desk sees what the kiosk did: the loan made, renewed once
			// and returned.
			hist := s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: w.libA}).json(t)["loans"].([]any)
			if len(hist) != 0 {
				t.Errorf("the book still has %d active loans after the client's check-in", len(hist))
			}
		})
	}
}

// TestSIP2OverTLS: with a certificate and key the listener speaks TLS; a
// kiosk that trusts the certificate signs in and works, and one that
// speaks plain text gets no SIP2 answer.
func TestSIP2OverTLS(t *testing.T) {
	certFile, keyFile, client := tlscert.Files(t)
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0", "LIBRARY_SIP2_TLS_CERT": certFile, "LIBRARY_SIP2_TLS_KEY": keyFile})
	s := w.s
	login, password := newKiosk(t, s, w.libA, "", "tls-kiosk")
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", s.sip2Addr(), client)
	if err != nil {
		t.Fatalf("TLS to the SIP2 listener: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	k := &kioskConn{t: t, c: c, r: bufio.NewReader(c)}
	if got := k.send("9300CN" + login + "|CO" + password + "|CPMAIN"); !strings.HasPrefix(got, "941") {
		t.Fatalf("sign-in over TLS: %q, want 941", got)
	}
	if got := k.send("9900402.00"); !strings.HasPrefix(got, "98YYYY") {
		t.Fatalf("status over TLS: %q", got)
	}

	plain := dialKiosk(t, s.sip2Addr())
	_ = plain.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := plain.c.Write([]byte("9300CN" + login + "|CO" + password + "|CPMAIN\r")); err != nil {
		t.Fatal(err)
	}
	if answer, _ := plain.r.ReadString('\r'); strings.HasPrefix(answer, "94") {
		t.Fatalf("a plain-text kiosk on the TLS listener was answered %q", answer)
	}
}

// TestKiosksPage: a librarian makes a kiosk on the web app's Kiosks page,
// sees its password once, and the kiosk signs in with it; a refused form
// says which field; removing the kiosk ends its sign-ins. Staff do not
// manage kiosks.
func TestKiosksPage(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0"}))
	lib := newBrowser(t, s)
	if p := lib.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	path := "/library/" + demoDomain + "/kiosks"
	if p := lib.get(path); p.Status != 200 || p.byID("no-kiosks") == nil || p.byID("kiosk-form") == nil {
		t.Fatalf("the empty Kiosks page: %d", p.Status)
	}
	made := lib.submit(path, url.Values{"name": {"Library entrance"}, "login": {"Maple-Entrance"}})
	password := made.text("kiosk-password")
	if made.Status != http.StatusCreated || len(password) != 24 || len(made.byTestID("kiosk-row")) != 1 {
		t.Fatalf("make a kiosk: %d, password %q, %d rows", made.Status, password, len(made.byTestID("kiosk-row")))
	}
	if again := lib.get(path); strings.Contains(again.Body, password) || again.byID("kiosk-password") != nil {
		t.Fatal("the kiosk's password is shown again on the next visit")
	}
	bad := lib.submit(path, url.Values{"name": {"Second"}, "login": {"maple-entrance"}})
	if bad.Status != http.StatusConflict || bad.text("kiosk-error") == "" {
		t.Fatalf("a taken login: %d %q", bad.Status, bad.text("kiosk-error"))
	}
	if bad := lib.submit(path, url.Values{"name": {"Pipe"}, "login": {"a|b"}}); bad.Status != 422 || bad.byID("kiosk-login-error") == nil {
		t.Fatalf("a login with a bar: %d", bad.Status)
	}

	k := dialKiosk(t, s.sip2Addr())
	if got := k.send("9300CNmaple-entrance|CO" + password + "|CP"); !strings.HasPrefix(got, "941") {
		t.Fatalf("the kiosk signs in with the page's password: %q", got)
	}
	row := lib.get(path).byTestID("kiosk-row")[0]
	var id string
	for _, at := range row.Attr {
		if at.Key == "data-kiosk-id" {
			id = at.Val
		}
	}
	if p := lib.submit(path+"/remove", url.Values{"kiosk_id": {id}}); p.Status != http.StatusSeeOther {
		t.Fatalf("remove: %d", p.Status)
	}
	if p := lib.get(path); p.byID("no-kiosks") == nil {
		t.Fatal("the kiosk is still listed after its removal")
	}
	if got := k.send("9900402.00"); !strings.HasPrefix(got, "98NNNN") {
		t.Fatalf("the removed kiosk's status: %q, want signed out", got)
	}

	staff := newBrowser(t, s)
	if p := staff.signIn("staff@maplegrove.example.org", demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("staff sign-in: %d", p.Status)
	}
	if p := staff.get(path); p.Status != http.StatusForbidden {
		t.Errorf("staff on the Kiosks page: %d, want 403", p.Status)
	}
	if p := staff.submit(path, url.Values{"name": {"Sneaky"}, "login": {"sneaky"}}); p.Status != http.StatusForbidden {
		t.Errorf("staff making a kiosk: %d, want 403", p.Status)
	}
}

// TestSIP2KioskFollowsTheDeskRules: a kiosk lends under the desk's rules.
// A student blocked by unpaid charges sees the block in their patron
// status and is refused a check-out; a returned copy a hold waits for
// raises the kiosk's alert and is not lent to anyone else; a loan's due
// date is the one the desk's rules give.
func TestSIP2KioskFollowsTheDeskRules(t *testing.T) {
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0"})
	s := w.s
	login, password := newKiosk(t, s, w.libA, "", "rules-kiosk")
	student := func(name, number string) string {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: fmt.Sprintf(`{"name":%q,"student_number":%q}`, name, number)})
		if r.Status != 201 {
			t.Fatalf("student %s: %d %s", name, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	bo, hana := student("Bo Blocked", "B-200"), student("Hana Holder", "H-300")
	student("Cy Reader", "C-400")
	w.putCharges(t, w.libA, `,"replacement_cost_cents":500,"block_charges_cents":100`)
	k := dialKiosk(t, s.sip2Addr())
	if got := k.send("9300CN" + login + "|CO" + password + "|CP"); !strings.HasPrefix(got, "941") {
		t.Fatalf("sign-in: %q", got)
	}
	checkout := func(number, code string) string {
		return k.send("11YN" + sipNow + strings.Repeat(" ", 18) + "AOMGS|AA" + number + "|AB" + code + "|AC")
	}

	// Bo loses a book: a charge of 5.00 over the school's 1.00 block.
	lostBook, lostCopies := w.addBook(t, w.libA, `{"title":"Lost at Sea","author":"Ina Log","copies":1}`)
	r := w.lend(w.libA, lostBook, lostCopies[0]["id"].(string), bo)
	if r.Status != 201 {
		t.Fatalf("lend to Bo: %d %s", r.Status, r.Body)
	}
	if r := w.act(w.libA, r.json(t)["loan"].(map[string]any)["id"].(string), "lost"); r.Status != 200 {
		t.Fatalf("lost: %d %s", r.Status, r.Body)
	}
	status := k.send("23001" + sipNow + "AOMGS|AAB-200|AC|AD")
	if flags := status[2:16]; flags[0] != 'Y' || flags[10] != 'Y' || sipField(status, "BV") != "5.00" || sipField(status, "BL") != "Y" {
		t.Fatalf("a blocked student's status: %q, want charges denied, excessive fines, 5.00 owed", status)
	}
	fresh, freshCopies := w.addBook(t, w.libA, `{"title":"Fresh Pages","author":"Ina Log","copies":2}`)
	if got := checkout("B-200", freshCopies[0]["code"].(string)); !strings.HasPrefix(got, "120") || sipField(got, "AF") == "" {
		t.Fatalf("a blocked student's check-out: %q, want refused with the reason", got)
	}
	if loans := s.do(req{Path: "/api/library/loans?book_id=" + fresh, Token: w.libA}).json(t)["loans"].([]any); len(loans) != 0 {
		t.Fatalf("the refused check-out made %d loans", len(loans))
	}

	// Cy's check-out is due when the desk's rules say.
	out := checkout("C-400", freshCopies[1]["code"].(string))
	if !strings.HasPrefix(out, "121") {
		t.Fatalf("Cy's check-out: %q", out)
	}
	loans := s.do(req{Path: "/api/library/loans?book_id=" + fresh, Token: w.libA}).json(t)["loans"].([]any)
	if len(loans) != 1 {
		t.Fatalf("%d loans after Cy's check-out, want 1", len(loans))
	}
	due := loans[0].(map[string]any)["due_at"].(string)
	if want := strings.ReplaceAll(due, "-", "") + "    235959"; sipField(out, "AH") != want {
		t.Errorf("the kiosk's due date %q, want the desk's %q", sipField(out, "AH"), want)
	}

	// Hana holds a title whose one copy Cy has; Cy returns it at the kiosk.
	heldBook, heldCopies := w.addBook(t, w.libA, `{"title":"Wanted Book","author":"Ina Log","copies":1}`)
	heldCode := heldCopies[0]["code"].(string)
	if got := checkout("C-400", heldCode); !strings.HasPrefix(got, "121") {
		t.Fatalf("Cy borrows the wanted book: %q", got)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.libA, Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, heldBook, hana)}); r.Status != 201 {
		t.Fatalf("Hana's hold: %d %s", r.Status, r.Body)
	}
	in := k.send("09N" + sipNow + sipNow + "APMAIN|AOMGS|AB" + heldCode + "|AC")
	if !strings.HasPrefix(in, "101NUY") || !strings.Contains(sipField(in, "AF"), "librarian") {
		t.Fatalf("returning a copy a hold waits for: %q, want ok, not re-armed, the alert and a word to hand it over", in)
	}
	if got := checkout("C-400", heldCode); !strings.HasPrefix(got, "120") {
		t.Fatalf("Cy borrowing the copy put aside for Hana: %q, want refused", got)
	}
}

// TestSIP2SignInsAreThrottled: a kiosk's wrong passwords count in the
// login throttle as people's do: past the budget of one login from one
// address, even the right password is refused for a while, on any
// connection, while another kiosk's login still signs in.
func TestSIP2SignInsAreThrottled(t *testing.T) {
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_SIP2_ADDR": "127.0.0.1:0", "LIBRARY_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS": "4"})
	s := w.s
	login, password := newKiosk(t, s, w.libA, "", "guessed-kiosk")
	other, otherPassword := newKiosk(t, s, w.libA, "", "other-kiosk")
	for i := range 4 {
		k := dialKiosk(t, s.sip2Addr())
		if got := k.send("9300CN" + login + "|COguess-" + fmt.Sprint(i) + "|CP"); !strings.HasPrefix(got, "940") {
			t.Fatalf("wrong password %d: %q", i+1, got)
		}
	}
	k := dialKiosk(t, s.sip2Addr())
	if got := k.send("9300CN" + login + "|CO" + password + "|CP"); !strings.HasPrefix(got, "940") {
		t.Fatalf("the right password after 4 wrong ones: %q, want refused while the login is locked", got)
	}
	if !strings.Contains(s.logsWith("kiosk sign-in throttled", 5*time.Second), "kiosk sign-in throttled") {
		t.Error("no log line says the sign-in was throttled")
	}
	k2 := dialKiosk(t, s.sip2Addr())
	if got := k2.send("9300CN" + other + "|CO" + otherPassword + "|CP"); !strings.HasPrefix(got, "941") {
		t.Fatalf("another kiosk's sign-in from the same address: %q, want 941", got)
	}
}
