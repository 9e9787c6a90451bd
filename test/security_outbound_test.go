package test

// Outbound calls: a school's catalogue server is a URL a librarian sets, so
// the service's calls must not reach its own network (cases 51 and 65 of
// test/SECURITY-CASES.md).

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sru/srutest"
)

// catalogueWorld is a service with school A's librarian signed in.
func catalogueWorld(t *testing.T, env map[string]string) *libraryWorld {
	t.Helper()
	s := startService(t, testEnv(t, env))
	w := &libraryWorld{s: s, libA: s.login(demoLibrarian, demoPassword).Access}
	w.schoolA = w.settings(w.libA, "")["school_id"].(string)
	return w
}

// errorPayload is an error answer's payload, to compare two answers whole.
func errorPayload(t *testing.T, r response) map[string]any {
	t.Helper()
	var body struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Error == nil {
		t.Fatalf("not an error answer: %d %s", r.Status, r.Body)
	}
	return body.Error
}

// TestSecurityOutboundRefusesTheServicesNetwork: without
// LIBRARY_OUTBOUND_ALLOW, a catalogue server on loopback, a private or a
// link-local (metadata) address, in any spelling, is never connected to;
// the librarian gets the very answer a server that is down gives, naming
// no address or port, and the log tells the operator why. With the
// setting, the same server is reached.
func TestSecurityOutboundRefusesTheServicesNetwork(t *testing.T) {
	srv := srutest.Start(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	// No allow list (the public internet stays off, so nothing here can
	// leave the machine).
	w := catalogueWorld(t, map[string]string{"LIBRARY_OUTBOUND_ALLOW": ""})
	var first map[string]any
	for _, endpoint := range []string{
		srv.Endpoint(),
		"http://localhost:" + port + "/LCDB",
		"http://[::ffff:127.0.0.1]:" + port + "/LCDB",
		"http://[::1]:" + port + "/LCDB",
		"http://0.0.0.0:" + port + "/LCDB",
		"http://2130706433:" + port + "/LCDB",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://10.0.0.1:8080/sru",
		"http://192.168.1.1/sru",
	} {
		if r := w.putCatalogEndpoint(w.libA, endpoint); r.Status != 200 {
			// The setting is a URL like any other; the call is what is refused.
			t.Fatalf("set sru_endpoint %s: %d %s", endpoint, r.Status, r.Body)
		}
		r := w.lookUp(w.libA, srutest.MatildaISBN)
		got := errorPayload(t, r)
		if r.Status != 502 || got["code"] != "catalog_source_unavailable" {
			t.Fatalf("%s: %d %s, want 502 catalog_source_unavailable", endpoint, r.Status, r.Body)
		}
		if first == nil {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Errorf("%s: answer %v differs from %v: the answers must not tell addresses apart", endpoint, got, first)
		}
		for _, leak := range []string{"127.0.0.1", port, "169.254", "10.0.0.1", "192.168", "localhost", "refused", "loopback"} {
			if strings.Contains(string(r.Body), leak) {
				t.Errorf("%s: the answer names %q: %s", endpoint, leak, r.Body)
			}
		}
	}
	if d, _ := first["details"].(map[string]any); len(d) != 0 || !strings.Contains(first["message"].(string), "could not be reached") {
		t.Errorf("answer = %v, want the server unreachable, with no details", first)
	}
	w.pointCatalogAt(t, srv.Endpoint())
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"isbn":"9780142410370","copies":1}`})
	if r.Status != 502 {
		t.Errorf("add by ISBN on a refused server: %d %s, want 502", r.Status, r.Body)
	}
	if n := srv.Accepted(); n != 0 {
		t.Fatalf("the loopback catalogue server accepted %d connections without LIBRARY_OUTBOUND_ALLOW, want 0", n)
	}
	if logs := w.s.logsWith("169.254.169.254 refused: link-local address", 10*time.Second); !strings.Contains(logs, "refused: loopback address") || !strings.Contains(logs, "169.254.169.254 refused: link-local address") {
		t.Errorf("the log does not tell the operator which address was refused and why:\n%s", logs)
	}

	// A server that is down, on a service that may call loopback, answers
	// the same.
	open := catalogueWorld(t, nil)
	open.pointCatalogAt(t, srutest.ClosedEndpoint(t))
	if down := errorPayload(t, open.lookUp(open.libA, srutest.MatildaISBN)); !reflect.DeepEqual(down, first) {
		t.Errorf("a server that is down answers %v, a refused one %v: they must be the same", down, first)
	}
	// With the setting (the harness allows loopback), the same server is
	// reached.
	open.pointCatalogAt(t, srv.Endpoint())
	if r := open.lookUp(open.libA, srutest.MatildaISBN); r.Status != 200 || r.json(t)["title"] != "Matilda" {
		t.Fatalf("lookup with loopback allowed: %d %s", r.Status, r.Body)
	}
	if srv.Accepted() == 0 {
		t.Error("the allowed catalogue server accepted no connection")
	}
}

// TestSecurityTestsNeverCallTheInternet: the test services allow loopback
// only. A new school's catalogue server is the Library of Congress's, on
// the internet; a lookup there and a book added by ISBN alone fail at once
// with the refusal of a name nobody allowed, which is not even looked up,
// so no test sends a packet off this machine.
func TestSecurityTestsNeverCallTheInternet(t *testing.T) {
	w := newLibraryWorld(t)
	if got := w.settings(w.libA, "")["sru_endpoint"]; got != "http://lx2.loc.gov:210/LCDB" {
		t.Fatalf("a new school's sru_endpoint = %v, want the Library of Congress's", got)
	}
	wantAPIError(t, "lookup on the default server", w.lookUp(w.libA, srutest.MatildaISBN), 502, "catalog_source_unavailable")
	wantAPIError(t, "add by ISBN on the default server", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"isbn":"9780142410370","copies":1}`}), 502, "catalog_source_unavailable")
	if logs := w.s.logsWith("lx2.loc.gov refused: not on the allow list", 10*time.Second); !strings.Contains(logs, "lx2.loc.gov refused: not on the allow list") {
		t.Errorf("the lookup was not refused before its name was looked up:\n%s", logs)
	}
}
