package uploadspool

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSpoolKeepsTheFileUntilReleased(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uploads")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool dir: %v, %v; want mode 0700", fi, err)
	}
	up, err := s.Spool(strings.NewReader("title,author,barcode\n"))
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("spool holds %d files, want 1", len(entries))
	}
	if fi, _ := entries[0].Info(); fi.Mode().Perm() != 0o600 {
		t.Fatalf("spooled file mode %v, want 0600", fi.Mode().Perm())
	}
	for pass := 0; pass < 2; pass++ {
		f, err := up.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "title,author,barcode\n" || up.Size != int64(len(b)) {
			t.Fatalf("pass %d read %q (size %d)", pass, b, up.Size)
		}
	}
	up.Release()
	up.Release()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("spool holds %d files after release, want 0", len(entries))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("body too large") }

func TestSpoolFailureLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Spool(io.MultiReader(strings.NewReader("abc"), failingReader{})); err == nil || err.Error() != "body too large" {
		t.Fatalf("Spool error = %v, want the reader's", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("spool holds %d files after a failed copy, want 0", len(entries))
	}
}

func TestOpenRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filePrefix+"123"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "other" {
		t.Fatalf("after Open the dir holds %v, want only other", entries)
	}
}
