package service

import (
	"context"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// SchoolByDomain returns the school at domain when the caller may act on
// it: admins on every school, school-bound roles on their own only. An
// unknown domain, another school's domain and an anonymous or school-less
// caller all get the same NotFound "school_not_found", so the answer never
// tells whether another school exists.
func (s *Library) SchoolByDomain(ctx context.Context, domain string) (library.School, error) {
	domain = strings.ToLower(strings.TrimSpace(domain))
	p := user.PrincipalFrom(ctx)
	switch {
	case p.IsAnonymous():
	case p.Role == user.RoleAdmin:
		return s.schools.GetByDomain(ctx, domain)
	case p.Role.SchoolBound() && p.SchoolID != "":
		school, err := s.schools.Get(ctx, p.SchoolID)
		if err != nil {
			return library.School{}, err
		}
		if school.Domain == domain {
			return school, nil
		}
	}
	return library.School{}, library.ErrSchoolNotFound()
}

// SchoolCatalog lists a school's books with their copy counts for the
// school's own staff, whether or not its catalog is public; books are
// ordered by title as in the public catalog.
// Errors: as scope.
func (s *Library) SchoolCatalog(ctx context.Context, schoolParam string) ([]CatalogEntry, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	books, err := s.repo.Books(ctx, school.ID)
	if err != nil {
		return nil, err
	}
	counts, err := s.repo.CopyCounts(ctx, school.ID)
	if err != nil {
		return nil, err
	}
	claims, err := s.repo.ClaimsOfSchool(ctx, school.ID)
	if err != nil {
		return nil, err
	}
	lent, err := s.lentByBook(ctx, claims)
	if err != nil {
		return nil, err
	}
	return catalogEntries(books, counts, lent), nil
}
