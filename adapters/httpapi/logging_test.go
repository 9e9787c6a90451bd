package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
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

// A handler's own line (a failed sign-in) names the request once, as the
// access line does: a repeated key makes log tools keep one value or the
// other, or reject the line.
func TestLogLinesCarryRequestIDOnce(t *testing.T) {
	f := newFixture(t, allowAll)
	f.logs.Reset()
	f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"Wrong-Lantern-93"}`, "X-Request-ID", "log-login")
	lines := logLines(t, f.logs.String())
	if len(lines) != 2 || lines[0].values["msg"] != "sign-in failed" {
		t.Fatalf("got %d log lines, want the sign-in failure and the access line:\n%s", len(lines), f.logs)
	}
	for _, l := range lines {
		if got := l.count("request_id"); got != 1 || l.values["request_id"] != "log-login" {
			t.Errorf("request_id appears %d times (%v), want once as log-login: %s", got, l.values["request_id"], l.raw)
		}
	}
}
