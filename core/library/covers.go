package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// CoverImage is a cover in the one form the service stores and serves: a
// JPEG with no metadata, fitted into CoverBox.
type CoverImage struct {
	JPEG          []byte
	Width, Height int
}

// The cover box: covers are about 2:3, and a catalogue row or a title page
// shows them at most this size.
const (
	CoverBoxWidth  = 400
	CoverBoxHeight = 600
)

// Cover bounds on what is read: an upload or a cover source's answer larger
// than MaxCoverBytes is refused unread past it, and an image of more than
// MaxCoverPixels is refused before it is decoded.
const (
	MaxCoverBytes  = 5 << 20
	MaxCoverPixels = 25_000_000
	MaxCoverSide   = 12_000
)

// Cover is a title's stored cover, or the record that its school's cover
// source had none (Missing) or that a librarian removed it (Removed): both
// keep the service from asking the source again until RetryAfter.
type Cover struct {
	SchoolID  string
	BookID    string
	Image     CoverImage // empty when Missing or Removed
	ETag      string     // of Image, for caching
	Source    string     // CoverUploaded or CoverFetched
	Missing   bool
	Removed   bool
	UpdatedAt time.Time
}

// CoverState is what a title's cover record says, without its image: a
// catalogue page decides from it whether to ask for the cover.
type CoverState struct {
	Present bool      // the record holds an image
	Removed bool      // a librarian removed the cover: it is not fetched again
	NotedAt time.Time // when the record was written: a title noted missing is asked about again a while later
}

// Where a cover came from.
const (
	CoverUploaded = "upload"
	CoverFetched  = "source"
)

// ErrCoverUnreadable refuses data that is not a JPEG, PNG, GIF or WebP
// image, or is damaged.
func ErrCoverUnreadable() error {
	return errs.E(errs.Invalid, errs.CodeCoverUnreadable, "The cover is not a JPEG, PNG, GIF or WebP image the service can read.")
}

// ErrCoverTooLarge refuses an image past the byte or pixel caps.
func ErrCoverTooLarge() error {
	return errs.E(errs.Invalid, errs.CodeCoverTooLarge, "The cover image is too large: at most 5 MiB and 25 megapixels.")
}

// ErrCoverNotFound is the answer for a title without a cover.
func ErrCoverNotFound() error {
	return errs.E(errs.NotFound, errs.CodeCoverNotFound, "The title has no cover.")
}
