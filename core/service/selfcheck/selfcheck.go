// Package selfcheck is the library's side of self-check kiosks: the
// librarian makes a kiosk for the school (a login and a password shown
// once), and the kiosk, signed in, looks up students by their card number
// and copies by their code and checks copies out, in and renews them
// through the same use cases, rules and blocks as the desk. The desk's own
// scans made while the server could not be reached come in the same way,
// by code and card number, when it answers again (offline.go).
package selfcheck

import (
	"context"
	"crypto/rand"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Deps are what SelfCheck is built with; only Audit may be nil.
type Deps struct {
	Kiosks ports.KioskRepository
	// OfflineOps are the desk's scans uploaded after an outage
	// (offline.go).
	OfflineOps ports.OfflineOpRepository
	Schools    ports.SchoolRepository
	Hasher     ports.PasswordHasher
	// Throttle weighs kiosk sign-ins as it weighs people's: by address
	// and by login, shared by every replica.
	Throttle    ports.LoginThrottle
	Holdings    *collection.Holdings
	Students    *students.Students
	Circulation *circulation.Circulation
	Clock       *usecase.Clock
	Audit       *usecase.AuditLog `deps:"optional"`
}

// SelfCheck manages kiosks and serves their requests.
type SelfCheck struct {
	d     Deps
	scope usecase.SchoolScope
}

// New builds SelfCheck. It panics on a nil dependency.
func New(d Deps) *SelfCheck {
	usecase.MustHave("selfcheck.New", d)
	return &SelfCheck{d: d, scope: usecase.NewSchoolScope(d.Schools)}
}

// passwordLength is the length of a kiosk's generated password: 24
// characters of a 32-letter alphabet are 120 bits, typed once into the
// kiosk's setup screen.
const passwordLength = 24

// passwordAlphabet leaves out letters and digits read for one another
// (0 and O, 1 and I and L).
const passwordAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// CreateKiosk makes a kiosk for the school and returns it with its
// password, which is stored only as a hash and never shown again.
// Errors: Invalid (name, login), Conflict "kiosk_login_taken", Conflict
// "kiosk_limit_reached", as scope.
func (s *SelfCheck) CreateKiosk(ctx context.Context, schoolParam string, d library.KioskDraft) (library.Kiosk, string, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Kiosk{}, "", err
	}
	d = d.Normalized()
	if err := d.Validate(); err != nil {
		return library.Kiosk{}, "", err
	}
	existing, err := s.d.Kiosks.KiosksOfSchool(ctx, school.ID, library.MaxKiosksPerSchool)
	if err != nil {
		return library.Kiosk{}, "", err
	}
	if len(existing) >= library.MaxKiosksPerSchool {
		return library.Kiosk{}, "", errs.E(errs.Conflict, errs.CodeKioskLimitReached, "The school has 50 kiosks, the most it may have; remove one first.")
	}
	password := randomPassword()
	hash, err := s.d.Hasher.Hash(password)
	if err != nil {
		return library.Kiosk{}, "", errs.Wrap(err, "hash the kiosk's password")
	}
	p := user.PrincipalFrom(ctx)
	k := library.Kiosk{ID: s.d.Clock.NewID(), SchoolID: school.ID, Name: d.Name, Login: d.Login, SecretHash: hash,
		CreatedAt: s.d.Clock.Now().UTC(), CreatedBy: strings.ToLower(p.Email)}
	if err := s.d.Kiosks.CreateKiosk(ctx, k); err != nil {
		return library.Kiosk{}, "", err
	}
	s.d.Audit.Record(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditKioskCreated, Target: k.ID,
		Summary: "Kiosk " + k.Name + " (" + k.Login + ") made", Changes: []library.AuditChange{{Field: "login", After: k.Login}, {Field: "name", After: k.Name}}})
	return k, password, nil
}

func randomPassword() string {
	b := make([]byte, passwordLength)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = passwordAlphabet[int(b[i])%len(passwordAlphabet)]
	}
	return string(b)
}

// Kiosks returns the school's kiosks, by name.
// Errors: as scope.
func (s *SelfCheck) Kiosks(ctx context.Context, schoolParam string) (library.School, []library.Kiosk, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, err
	}
	ks, err := s.d.Kiosks.KiosksOfSchool(ctx, school.ID, library.MaxKiosksPerSchool)
	return school, ks, err
}

// DeleteKiosk removes a kiosk of the school: it can no longer sign in, and
// a session it has open ends at its next request.
// Errors: NotFound "kiosk_not_found", as scope.
func (s *SelfCheck) DeleteKiosk(ctx context.Context, schoolParam, id string) error {
	if !usecase.IsUUID(id) {
		return library.ErrKioskNotFound()
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return err
	}
	if err := s.d.Kiosks.DeleteKiosk(ctx, school.ID, id); err != nil {
		return err
	}
	s.d.Audit.Record(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditKioskDeleted, Target: id, Summary: "Kiosk removed"})
	return nil
}
