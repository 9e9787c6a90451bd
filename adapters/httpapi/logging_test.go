package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// A handler's own line (a failed sign-in) names the request once, as the
// access line does: a repeated key makes log tools keep one value or the
// other, or reject the line. The chain's own lines are checked in
// httpedge.
func TestLogLinesCarryRequestIDOnce(t *testing.T) {
	f := newFixture(t, allowAll)
	f.logs.Reset()
	f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"Wrong-Lantern-93"}`, "X-Request-ID", "log-login")
	lines := strings.Split(strings.TrimSpace(f.logs.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"msg":"sign-in failed"`) {
		t.Fatalf("got %d log lines, want the sign-in failure and the access line:\n%s", len(lines), f.logs)
	}
	for _, l := range lines {
		if n := strings.Count(l, `"request_id":`); n != 1 || !strings.Contains(l, `"request_id":"log-login"`) {
			t.Errorf("request_id appears %d times, want once as log-login: %s", n, l)
		}
	}
}
