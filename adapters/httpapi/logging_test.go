package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
)

// logLine is one JSON log line: its top-level keys in order (repeats kept,
// which a map would hide) and its values by key.
type logLine struct {
	raw    string
	keys   []string
	values map[string]any
}

func (l logLine) count(key string) int {
	n := 0
	for _, k := range l.keys {
		if k == key {
			n++
		}
	}
	return n
}

// logLines splits the fixture's JSON log into lines and reads each one's
// top-level keys.
func logLines(tb testing.TB, logs string) []logLine {
	tb.Helper()
	var out []logLine
	for _, raw := range strings.Split(strings.TrimSpace(logs), "\n") {
		if raw == "" {
			continue
		}
		line := logLine{raw: raw, values: map[string]any{}}
		dec := json.NewDecoder(strings.NewReader(raw))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			tb.Fatalf("log line is not a JSON object: %s", raw)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				tb.Fatalf("log line %s: %v", raw, err)
			}
			key := tok.(string)
			var v any
			if err := dec.Decode(&v); err != nil {
				tb.Fatalf("log line %s: %v", raw, err)
			}
			line.keys = append(line.keys, key)
			line.values[key] = v
		}
		out = append(out, line)
	}
	return out
}

// Every line logged while serving a request names the request once: a
// repeated key makes log tools keep one value or the other, or reject the
// line.
func TestLogLinesCarryRequestIDOnce(t *testing.T) {
	f := newFixture(t, allowAll)
	f.logs.Reset()
	// The same order as the router's chain, around handlers that reach each
	// logging path: an internal error, a dependency outage and a panic.
	wrap := func(next http.HandlerFunc) http.Handler {
		return f.h.withRequestID(f.h.accessLog(f.h.recoverPanics(next)))
	}
	handlers := map[string]http.Handler{
		"log-internal": wrap(func(w http.ResponseWriter, r *http.Request) { writeError(w, r, errors.New("disk on fire")) }),
		"log-panic":    wrap(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		"log-outage": wrap(func(w http.ResponseWriter, r *http.Request) {
			e := errs.E(errs.Unavailable, "unavailable", "The catalogue is unavailable.")
			e.Err = errors.New("no reachable servers")
			writeError(w, r, e)
		}),
		"log-info": wrap(func(w http.ResponseWriter, r *http.Request) { loggerFrom(r).Info("something happened") }),
		// What the web app's pages log through (ExtraRoute handlers).
		"log-page": wrap(func(w http.ResponseWriter, r *http.Request) { RequestLogger(r).Error("render page") }),
	}
	for id, h := range handlers {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Request-ID", id)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	// A failed sign-in logs through the real chain as well.
	f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"Wrong-Lantern-93"}`, "X-Request-ID", "log-login")

	lines := logLines(t, f.logs.String())
	if len(lines) < 10 {
		t.Fatalf("got %d log lines, want at least 10 (a line and an access line per request):\n%s", len(lines), f.logs)
	}
	pageLine := false
	for _, l := range lines {
		if got := l.count("request_id"); got != 1 {
			t.Errorf("request_id appears %d times, want 1: %s", got, l.raw)
		}
		if l.values["msg"] == "render page" {
			pageLine = l.values["request_id"] == "log-page"
		}
	}
	if !pageLine {
		t.Errorf("the page's error line does not carry its request id log-page:\n%s", f.logs)
	}
}

// A panic is logged once, with its stack, beside the request's access line;
// the 500 it becomes is not logged again as an internal error.
func TestPanicIsLoggedOnce(t *testing.T) {
	f := newFixture(t, allowAll)
	f.logs.Reset()
	h := f.h.withRequestID(f.h.accessLog(f.h.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("shelf collapsed")
	}))))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("X-Request-ID", "panic-once")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", rec.Code)
	}

	var msgs []string
	var panicLine logLine
	for _, l := range logLines(t, f.logs.String()) {
		msg, _ := l.values["msg"].(string)
		msgs = append(msgs, msg)
		if msg == "panic" {
			panicLine = l
		}
	}
	if got, want := strings.Join(msgs, ","), "panic,request"; got != want {
		t.Fatalf("log messages = %s, want %s (one panic line, then the access line):\n%s", got, want, f.logs)
	}
	if panicLine.values["panic"] != "shelf collapsed" || !strings.Contains(panicLine.values["stack"].(string), "goroutine") {
		t.Fatalf("panic line lacks the value or the stack: %s", panicLine.raw)
	}
	if mentions := strings.Count(f.logs.String(), "shelf collapsed"); mentions != 1 {
		t.Fatalf("the panic value is logged %d times, want 1:\n%s", mentions, f.logs)
	}
}
