//go:build unix

package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// The embedded store keeps the school's data private on a shared machine:
// under a umask that lets everyone read, the data directory the service
// creates is 0700, and library.db, its -wal and -shm, the secret key and a
// backup are 0600, with no warning at start. A data directory and database
// made readable to others by hand are named in a warning at the next start,
// with their modes, and the service starts all the same.
func TestDataFilesArePrivate(t *testing.T) {
	if testStore() == "mongo" {
		t.Skip("the embedded store's files; this run is on MongoDB")
	}
	if testTarget() == "container" {
		skipInContainer(t, "the files are inside the container")
	}
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "school-data")
	env := testEnv(t, map[string]string{"LIBRARY_DATA_DIR": dir})
	s := startService(t, env)
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Private Pupil","student_number":"PRIV-1"}`}); r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	mode := func(path string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	want := map[string]os.FileMode{dir: 0o700}
	for _, name := range []string{app.EmbeddedFile, app.EmbeddedFile + "-wal", app.EmbeddedFile + "-shm", app.SecretKeyFile} {
		want[filepath.Join(dir, name)] = 0o600
	}
	backup := filepath.Join(t.TempDir(), "copy.db")
	var out bytes.Buffer
	if err := app.RunBackup(context.Background(), func(k string) string { return env[k] }, []string{backup}, &out, &out); err != nil {
		t.Fatalf("libraryd backup: %v\n%s", err, out.String())
	}
	want[backup] = 0o600
	for path, m := range want {
		if got := mode(path); got != m {
			t.Errorf("%s: mode %04o, want %04o", path, got, m)
		}
	}
	const warning = "a data file is readable by other users of this machine"
	if strings.Contains(s.Logs.String(), warning) {
		t.Errorf("a warning about readable data files at the first start:\n%s", s.Logs.String())
	}
	s.stop()

	for path, m := range map[string]os.FileMode{dir: 0o755, filepath.Join(dir, app.EmbeddedFile): 0o644} {
		if err := os.Chmod(path, m); err != nil {
			t.Fatal(err)
		}
	}
	again := startService(t, env)
	again.login(demoLibrarian, demoPassword)
	warned := map[string]string{}
	for _, line := range strings.Split(again.Logs.String(), "\n") {
		var entry struct {
			Level, Msg, File, Mode string
		}
		if json.Unmarshal([]byte(line), &entry) == nil && strings.HasPrefix(entry.Msg, warning) {
			if entry.Level != "WARN" {
				t.Errorf("logged at %s, want WARN: %s", entry.Level, line)
			}
			warned[entry.File] = entry.Mode
		}
	}
	// SQLite made the -wal and -shm of the restart with the database's
	// new mode: they are named too.
	wantWarned := map[string]string{
		dir: "0755", filepath.Join(dir, app.EmbeddedFile): "0644",
		filepath.Join(dir, app.EmbeddedFile+"-wal"): "0644", filepath.Join(dir, app.EmbeddedFile+"-shm"): "0644",
	}
	if fmt.Sprint(warned) != fmt.Sprint(wantWarned) {
		t.Errorf("warnings at the second start named %v, want %v", warned, wantWarned)
	}
}
