package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// KioskRepository stores the schools' self-check kiosks. Each method is
// one index-backed command.
type KioskRepository interface {
	// CreateKiosk stores k. Errors: Conflict "kiosk_login_taken" when
	// another kiosk has its login (a unique key: two librarians choosing
	// the same login at once get one kiosk and one refusal).
	CreateKiosk(ctx context.Context, k library.Kiosk) error
	// KioskByLogin returns the kiosk with the login, of any school.
	// Errors: NotFound "kiosk_not_found".
	KioskByLogin(ctx context.Context, login string) (library.Kiosk, error)
	// KiosksOfSchool returns up to limit of the school's kiosks, by name
	// then id. A limit below 1 is no query.
	KiosksOfSchool(ctx context.Context, schoolID string, limit int) ([]library.Kiosk, error)
	// DeleteKiosk removes the school's kiosk. Errors: NotFound
	// "kiosk_not_found", also for another school's kiosk.
	DeleteKiosk(ctx context.Context, schoolID, id string) error
}
