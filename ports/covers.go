package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// CoverImages turns an image a librarian uploads, or a cover source sends,
// into the form the service stores.
type CoverImages interface {
	// Normalize decodes data (JPEG, PNG, GIF or WebP), turns it upright by
	// its EXIF orientation, fits it into the cover box without blowing it
	// up, and encodes it as a JPEG with no metadata.
	// Errors: Invalid "cover_unreadable" (another kind of file, or a damaged
	// one), "cover_too_large" (past library.MaxCoverBytes or the pixel caps).
	Normalize(data []byte) (library.CoverImage, error)
}

// CoverSource finds covers by ISBN at the school's cover service (Open
// Library's by default), through the service's guarded outbound client.
type CoverSource interface {
	// Cover returns the cover image the source has for the ISBN, as sent
	// (at most library.MaxCoverBytes).
	// Errors: NotFound "cover_not_found" when the source has none;
	// Unavailable when it cannot be reached or answers an error.
	Cover(ctx context.Context, isbn string) ([]byte, error)
}

// CoverRepository stores the titles' covers and the records that a title
// has none at its source, or had its cover removed.
type CoverRepository interface {
	// Put stores c for its book, replacing what the book had.
	Put(ctx context.Context, c library.Cover) error
	// Get returns the book's cover record.
	// Errors: NotFound "cover_not_found" when it has none.
	Get(ctx context.Context, schoolID, bookID string) (library.Cover, error)
	// Known returns, for each of the school's books named that has a
	// record, what the record says: whether it holds an image, whether the
	// cover was removed, and when it was written. Books without a record
	// are absent.
	Known(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.CoverState, error)
	// Delete removes the book's record. Idempotent.
	Delete(ctx context.Context, schoolID, bookID string) error
}
