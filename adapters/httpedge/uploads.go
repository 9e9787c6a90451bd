package httpedge

import (
	"io"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// KeepUpload keeps a file a request sends for reading: in spool, or in
// memory when the service has none.
func KeepUpload(spool ports.UploadSpool, r io.Reader) (library.Upload, error) {
	if spool != nil {
		return spool.Spool(r)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return library.Upload{}, err
	}
	return library.BytesUpload(data), nil
}

// ReadWatch reads R and keeps the error of reading it, to tell a request
// body (or a form's part) that could not be read from a failure of what
// it was copied to.
type ReadWatch struct {
	R   io.Reader
	Err error
}

func (w *ReadWatch) Read(p []byte) (int, error) {
	n, err := w.R.Read(p)
	if err != nil && err != io.EOF {
		w.Err = err
	}
	return n, err
}
