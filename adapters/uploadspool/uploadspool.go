// Package uploadspool keeps uploaded files in a directory of their own
// while the service reads them (ports.UploadSpool).
package uploadspool

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// filePrefix starts the name of every spooled file; only such files are
// taken as leftovers.
const filePrefix = "upload-"

// Spool writes uploads to files of mode 0600 in a directory of mode 0700.
type Spool struct {
	dir string
}

var _ ports.UploadSpool = (*Spool)(nil)

// Open makes dir (mode 0700) if needed and removes the uploads a previous
// process left there: the directory belongs to one process.
func Open(dir string) (*Spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("upload spool: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("upload spool: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("upload spool: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), filePrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return nil, fmt.Errorf("upload spool: remove a leftover upload: %w", err)
			}
		}
	}
	return &Spool{dir: dir}, nil
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Spool copies r into a new file of the spool.
func (s *Spool) Spool(r io.Reader) (library.Upload, error) {
	f, err := os.CreateTemp(s.dir, filePrefix+"*") // mode 0600
	if err != nil {
		return library.Upload{}, fmt.Errorf("upload spool: %w", err)
	}
	path := f.Name()
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("upload spool: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(path)
		return library.Upload{}, err
	}
	var once sync.Once
	return library.Upload{
		Size:   n,
		Open:   func() (io.ReadCloser, error) { return os.Open(path) },
		Remove: func() { once.Do(func() { _ = os.Remove(path) }) },
	}, nil
}
