package test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/readinglibrary/service"

// TestArchitecture enforces the layers of the module on the production
// code (test files may import what they need): the core is pure, ports
// depend only on the core, the use-case contexts call only the contexts
// below them, adapters never import each other except the shared HTTP edge
// that the front doors stand on, only cmd names concrete adapters, and the
// port fakes stay in tests.
func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			if msg := forbidden(rel, imp); msg != "" {
				t.Errorf("%s imports %s: %s", rel, imp, msg)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages", checked)
	}
}

// sharedEdge is the one adapter other adapters may import: the middleware
// chain, route guard and error writer of every HTTP front door.
const sharedEdge = "httpedge"

// frontDoors are the adapters that serve routes through the shared edge.
var frontDoors = map[string]bool{"httpapi": true, "webapp": true}

// forbidden says why pkg (relative to the module) may not import imp.
func forbidden(pkg, imp string) string {
	own := strings.HasPrefix(imp, module+"/")
	rel := strings.TrimPrefix(imp, module+"/")
	stdlib := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
	if rel == "ports/portfake" {
		return "only tests may use the port fakes"
	}
	switch {
	case strings.HasPrefix(pkg, "core/"):
		if own && !strings.HasPrefix(rel, "core/") && rel != "ports" {
			return "the core may import only core packages and ports"
		}
		if rel == "ports" && !strings.HasPrefix(pkg, "core/service") {
			return "only core/service may use ports"
		}
		if msg := contextRule(pkg, rel); own && msg != "" {
			return msg
		}
		if !own && !stdlib && imp != "github.com/google/uuid" && !strings.HasPrefix(imp, "golang.org/x/text/") {
			return "the core holds pure domain logic: no HTTP, BSON, Ladon or limiter libraries"
		}
		for _, banned := range []string{"net/http", "database/sql"} {
			if imp == banned {
				return "the core knows no transport or storage"
			}
		}
	case pkg == "ports" || strings.HasPrefix(pkg, "ports/"):
		if own && !strings.HasPrefix(rel, "core/") && !strings.HasPrefix(rel, "ports") {
			return "ports depend only on the core"
		}
	case strings.HasPrefix(pkg, "adapters/"):
		mine := strings.SplitN(strings.TrimPrefix(pkg, "adapters/"), "/", 2)[0]
		if own && strings.HasPrefix(rel, "adapters/") {
			other := strings.SplitN(strings.TrimPrefix(rel, "adapters/"), "/", 2)[0]
			if other != mine && !(other == sharedEdge && frontDoors[mine]) {
				return "adapters never import each other (the front doors may stand on adapters/httpedge); cmd wires them"
			}
		}
		if own && strings.HasPrefix(rel, "cmd/") {
			return "adapters never import the wiring"
		}
	}
	return ""
}

// contextCalls says which use-case contexts (packages under core/service)
// each context may call: the lower ones never call the higher ones, so no
// context reaches into one that builds on it. core/service itself builds
// the library from all of them.
var contextCalls = map[string][]string{
	"usecase":     nil,
	"identity":    {"usecase"},
	"reading":     {"usecase"},
	"schools":     {"usecase"},
	"students":    {"usecase"},
	"circulation": {"usecase", "students"},
	"collection":  {"usecase", "circulation"},
	"users":       {"usecase", "identity", "circulation"},
	"selfcheck":   {"usecase", "students", "circulation", "collection"},
}

// contextRule says why the core package pkg may not import the core
// package rel (both relative to the module).
func contextRule(pkg, rel string) string {
	const uc = "core/service/"
	if !strings.HasPrefix(rel, "core/service") {
		return ""
	}
	if !strings.HasPrefix(pkg, "core/service") {
		return "the domain packages never call the use cases"
	}
	if pkg == "core/service" {
		return ""
	}
	mine := strings.SplitN(strings.TrimPrefix(pkg, uc), "/", 2)[0]
	if rel == "core/service" {
		return "a context never calls the library's wiring"
	}
	other := strings.SplitN(strings.TrimPrefix(rel, uc), "/", 2)[0]
	allowed, known := contextCalls[mine]
	if !known {
		return "a package under core/service that is not a known context: add it to contextCalls"
	}
	if other != mine && !slices.Contains(allowed, other) {
		return "a context calls only the contexts below it: " + mine + " may call " + strings.Join(allowed, ", ")
	}
	return ""
}

// TestBinaryLeavesFerretDBOut checks that the production binary carries no
// MongoDB-compatible server: FerretDB is only the in-process test backend
// of the MongoDB adapter (and of the load generator), and the embedded
// store is a SQLite file with no network port.
func TestBinaryLeavesFerretDBOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/libraryd").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed only %d packages", len(deps))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/FerretDB/") || d == module+"/adapters/mongorepo/mongotest/ferret" {
			t.Errorf("cmd/libraryd depends on %s", d)
		}
	}
}

// TestCoreNamesNoDatabaseServer checks that the core and the ports speak
// of stores by what they guarantee, never by the server a test runs them
// on: FerretDB is the MongoDB adapter's test backend, named only in that
// adapter and in tests.
func TestCoreNamesNoDatabaseServer(t *testing.T) {
	forEachProductionLine(t, []string{"../core", "../ports"}, func(path string, n int, line string) {
		if strings.Contains(strings.ToLower(line), "ferretdb") {
			t.Errorf("%s:%d names the test backend: %s", path, n, strings.TrimSpace(line))
		}
	})
}

// TestCoreTakesNoRepositoryBag checks that every use case is built with
// the ports it uses: ports.Repositories, the bag of all a store's
// repositories, is for the wiring (cmd/libraryd/wire), never for the core.
func TestCoreTakesNoRepositoryBag(t *testing.T) {
	forEachProductionLine(t, []string{"../core"}, func(path string, n int, line string) {
		if strings.Contains(line, "ports.Repositories") {
			t.Errorf("%s:%d takes the bag of repositories: %s", path, n, strings.TrimSpace(line))
		}
	})
}

// forEachProductionLine calls check with each line of every non-test Go
// file under roots, and fails if it found fewer than 20 files.
func forEachProductionLine(t *testing.T, roots []string, check func(path string, n int, line string)) {
	t.Helper()
	checked := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for i, line := range strings.Split(string(b), "\n") {
				check(path, i+1, line)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Fatalf("read only %d files under %v", checked, roots)
	}
}

// TestLayerRules checks the rules themselves on imports that must pass and
// imports that must not, so that loosening one shows here.
func TestLayerRules(t *testing.T) {
	m := module + "/"
	tests := []struct {
		pkg, imp string
		allowed  bool
	}{
		{"adapters/httpapi", m + "adapters/httpedge", true},
		{"adapters/webapp", m + "adapters/httpedge", true},
		{"adapters/webapp", m + "adapters/httpapi", false},
		{"adapters/httpapi", m + "adapters/webapp", false},
		{"adapters/httpedge", m + "adapters/httpapi", false},
		{"adapters/mongorepo", m + "adapters/httpedge", false},
		{"adapters/sqliterepo", m + "adapters/mongorepo", false},
		{"adapters/httpedge", m + "cmd/libraryd/app", false},
		{"adapters/httpedge", m + "ports", true},
		{"core/service", "net/http", false},
		{"core/library", m + "adapters/httpedge", false},
		{"core/library", "github.com/gorilla/mux", false},
		{"ports", m + "adapters/httpedge", false},
		{"cmd/libraryd/app", m + "adapters/httpedge", true},
		{"adapters/httpapi", m + "ports/portfake", false},
		{"core/service/collection", m + "core/service/circulation", true},
		{"core/service/circulation", m + "core/service/collection", false},
		{"core/service/identity", m + "core/service/users", false},
		{"core/service/users", m + "core/service/identity", true},
		{"core/service/usecase", m + "core/service/identity", false},
		{"core/service/students", m + "core/service", false},
		{"core/service", m + "core/service/collection", true},
		{"core/library", m + "core/service/usecase", false},
		{"core/service/inventory", m + "core/service/usecase", false},
	}
	for _, tt := range tests {
		if got := forbidden(tt.pkg, tt.imp) == ""; got != tt.allowed {
			t.Errorf("%s importing %s: allowed = %v, want %v (%q)", tt.pkg, tt.imp, got, tt.allowed, forbidden(tt.pkg, tt.imp))
		}
	}
}
