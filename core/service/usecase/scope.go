package usecase

import (
	"context"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// schoolScope decides which school a request acts on.
type SchoolScope struct {
	Schools ports.SchoolRepository
}

func NewSchoolScope(schools ports.SchoolRepository) SchoolScope {
	MustHave("newSchoolScope", struct{ Schools ports.SchoolRepository }{schools})
	return SchoolScope{Schools: schools}
}

// scope returns the school a request acts on. explicit is the school the
// client named (schoolId or school_id), field its name for errors.
// Errors: Forbidden (another school, or a role without one), Invalid (an
// admin without a school), NotFound "school_not_found".
func (s SchoolScope) Scope(ctx context.Context, explicit, field string) (library.School, error) {
	p := user.PrincipalFrom(ctx)
	switch {
	case p.Role == user.RoleAdmin:
		if explicit == "" {
			return library.School{}, errs.InvalidField(field, "is required for admins")
		}
		if !IsUUID(explicit) {
			return library.School{}, library.ErrSchoolNotFound()
		}
		return s.Schools.Get(ctx, explicit)
	case p.Role.SchoolBound() && p.SchoolID != "":
		if explicit != "" && explicit != p.SchoolID {
			return library.School{}, errs.E(errs.Forbidden, errs.CodeForbidden, "You can only act on your own school.")
		}
		return s.Schools.Get(ctx, p.SchoolID)
	}
	return library.School{}, errs.E(errs.Forbidden, errs.CodeForbidden, "This account belongs to no school.")
}

// reaches reports whether a request acting on schoolParam reaches an
// object of schoolID: with a school named (a web page's, or a client's
// schoolId), only that school's objects, the school checked as scope checks
// it; with none, any school the caller reaches (reachable).
// Errors: as scope.
func (s SchoolScope) Reaches(ctx context.Context, schoolParam, schoolID string) (bool, error) {
	if schoolParam == "" {
		return Reachable(ctx, schoolID), nil
	}
	school, err := s.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return false, err
	}
	return school.ID == schoolID, nil
}

// reachable reports whether the caller may reach objects of schoolID
// without naming it: admins reach every school, others their own.
func Reachable(ctx context.Context, schoolID string) bool {
	p := user.PrincipalFrom(ctx)
	return p.Role == user.RoleAdmin || (p.SchoolID != "" && p.SchoolID == schoolID)
}

// Student returns the caller when they are a student: the routes of a
// student's own loans, holds, history, lists and reviews act on the
// caller alone. Errors: Forbidden, with refusal as its message.
func Student(ctx context.Context, refusal string) (user.Principal, error) {
	p := user.PrincipalFrom(ctx)
	if p.Role != user.RoleStudent {
		return p, errs.E(errs.Forbidden, errs.CodeForbidden, "%s", refusal)
	}
	return p, nil
}
