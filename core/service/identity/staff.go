package identity

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Staff serves the accounts that run a school library: librarians and
// staff, their invitations and suspension, and admins' changes to any
// account's role and tier.
type Staff struct {
	schools  ports.SchoolRepository
	accounts ports.AccountRepository
	invites  ports.InviteRepository
	refresh  ports.RefreshTokenRepository
	identity *Identity
	clock    *usecase.Clock
	audit    *usecase.AuditLog
}

// StaffDeps are what Staff is built with; none may be nil.
type StaffDeps struct {
	Schools       ports.SchoolRepository
	Accounts      ports.AccountRepository
	Invites       ports.InviteRepository
	RefreshTokens ports.RefreshTokenRepository
	Identity      *Identity
	Clock         *usecase.Clock
	// Audit records what staff and admins change; nil records nothing.
	Audit *usecase.AuditLog `deps:"optional"`
}

// NewStaff builds Staff. It panics on a nil dependency.
func NewStaff(d StaffDeps) *Staff {
	usecase.MustHave("NewStaff", d)
	return &Staff{schools: d.Schools, accounts: d.Accounts, invites: d.Invites, refresh: d.RefreshTokens, identity: d.Identity, clock: d.Clock, audit: d.Audit}
}

// InviteTTL is how long an invitation can be redeemed.
const InviteTTL = 7 * 24 * time.Hour

// targetAccount loads an account by its bare UUID. Errors: NotFound
// "account_not_found".
func (s *Staff) targetAccount(ctx context.Context, id string) (user.Account, error) {
	if !usecase.IsUUID(id) {
		return user.Account{}, user.ErrNotFound(id)
	}
	a, err := s.accounts.Get(ctx, id)
	if err == nil && a.Deleted {
		return user.Account{}, user.ErrNotFound(id)
	}
	return a, err
}

// accountWithin loads an account as targetAccount does; when schoolParam
// names a school, an account of any other school is not found.
func (s *Staff) accountWithin(ctx context.Context, schoolParam, id string) (user.Account, error) {
	a, err := s.targetAccount(ctx, id)
	if err != nil || schoolParam == "" {
		return a, err
	}
	if ok, err := usecase.NewSchoolScope(s.schools).Reaches(ctx, schoolParam, a.SchoolID); err != nil || !ok {
		if err == nil {
			err = user.ErrNotFound(id)
		}
		return user.Account{}, err
	}
	return a, nil
}

// UpdateUser changes an account's tier and role (admins). A school-bound
// role needs the account to have a school; admin and reader drop it.
// Errors: NotFound "account_not_found", Invalid, Conflict
// "cannot_change_own_role".
func (s *Staff) UpdateUser(ctx context.Context, accountID string, tier *user.Tier, role *user.Role) (user.Account, error) {
	a, err := s.targetAccount(ctx, accountID)
	if err != nil {
		return user.Account{}, err
	}
	fields := errs.FieldErrors{}
	if tier != nil && !tier.Valid() {
		fields.Add("tier", "must be standard or premium")
	}
	if role != nil {
		switch {
		case !role.Valid():
			fields.Add("role", "must be one of admin, staff, librarian, student, reader")
		case role.SchoolBound() && a.SchoolID == "":
			fields.Add("role", "needs an account that belongs to a school")
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	if role != nil && a.ID == user.PrincipalFrom(ctx).AccountID && *role != a.Role {
		return user.Account{}, errs.E(errs.Conflict, errs.CodeCannotChangeOwnRole, "You cannot change your own role.")
	}
	before := accountAuditFields(a)
	if tier != nil {
		a.Tier = *tier
	}
	if role != nil {
		a.Role = *role
		if !a.Role.SchoolBound() {
			a.SchoolID = ""
		}
	}
	a.UpdatedAt = s.clock.Now().UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	s.auditAccount(ctx, before, a, library.AuditAccountChanged, "Account changed: "+a.Email)
	return a, nil
}

// accountAuditFields are what the log compares of an account.
func accountAuditFields(a user.Account) map[string]string {
	return map[string]string{"role": string(a.Role), "tier": string(a.Tier), "school_id": a.SchoolID,
		"suspended": strconv.FormatBool(a.Suspended)}
}

// auditAccount logs a change of an account from before to a, when
// anything changed. The entry is the school's the account was of, or is
// of now.
func (s *Staff) auditAccount(ctx context.Context, before map[string]string, a user.Account, action library.AuditAction, summary string) {
	s.audit.RecordChange(ctx, library.AuditEntry{SchoolID: cmp.Or(before["school_id"], a.SchoolID), Action: action, Target: a.ID, SubjectID: a.ID,
		Summary: summary}, before, accountAuditFields(a))
}

// staffRoles are the roles Accounts lists.
var staffRoles = []user.Role{user.RoleLibrarian, user.RoleStaff, user.RoleTeacher}

// Accounts lists the librarian, staff and teacher accounts of a school.
// Errors: as scope.
func (s *Staff) Accounts(ctx context.Context, schoolParam string) ([]user.Account, error) {
	school, err := usecase.SchoolScope{Schools: s.schools}.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	all, err := s.accounts.ListBySchool(ctx, school.ID, staffRoles)
	if err != nil {
		return nil, err
	}
	out := []user.Account{}
	for _, a := range all {
		if !a.Deleted {
			out = append(out, a)
		}
	}
	return out, nil
}

// Invite creates a librarian (or staff, or teacher) account for a school. Without a
// password it also returns a single-use token, valid for InviteTTL, that
// the person redeems with AcceptInvite to choose a password.
// Errors: Invalid, NotFound "school_not_found", Conflict "account_exists".
func (s *Staff) Invite(ctx context.Context, email, schoolID, password string, role user.Role) (user.Account, string, error) {
	if role == "" {
		role = user.RoleLibrarian
	}
	fields := errs.FieldErrors{}
	if role != user.RoleLibrarian && role != user.RoleStaff && role != user.RoleTeacher {
		fields.Add("role", "must be librarian, staff or teacher")
	}
	if !usecase.IsUUID(schoolID) {
		fields.Add("school_id", "must be a UUID")
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, "", err
	}
	if _, err := s.schools.Get(ctx, schoolID); err != nil {
		return user.Account{}, "", err
	}
	// An address that has an account is refused before anything is
	// written: the invitation would otherwise stay behind, unusable.
	if _, err := s.accounts.GetByEmail(ctx, user.NormalizeEmail(email)); err == nil {
		return user.Account{}, "", user.ErrEmailTaken()
	} else if !errs.Is(err, errs.NotFound) {
		return user.Account{}, "", err
	}
	name := strings.SplitN(user.NormalizeEmail(email), "@", 2)[0]
	if password != "" {
		a, err := s.identity.CreateAccount(ctx, NewAccountInput{Email: email, Password: password, Name: name, Role: role, SchoolID: schoolID})
		if err == nil {
			s.auditInvite(ctx, a, "with a password")
		}
		return a, "", err
	}
	a, err := user.NewAccount(user.NewAccountParams{ID: s.clock.NewID(), Email: email, Name: name, Role: role, SchoolID: schoolID, Now: s.clock.Now()})
	if err != nil {
		return user.Account{}, "", err
	}
	token, err := newSecret()
	if err != nil {
		return user.Account{}, "", errs.Wrap(err, "generate invite token")
	}
	// The invitation first: an account without one would be unusable.
	now := s.clock.Now().UTC()
	if err := s.invites.Create(ctx, library.Invite{TokenHash: auth.HashToken(token), AccountID: a.ID, ExpiresAt: now.Add(InviteTTL), CreatedAt: now}); err != nil {
		return user.Account{}, "", err
	}
	if err := s.accounts.Create(ctx, a); err != nil {
		// An account made for the address in between: take the
		// invitation back.
		if errs.Is(err, errs.Conflict) {
			if derr := s.invites.DeleteByAccount(ctx, a.ID); derr != nil {
				return user.Account{}, "", derr
			}
		}
		return user.Account{}, "", err
	}
	s.auditInvite(ctx, a, "to choose a password")
	return a, token, nil
}

// auditInvite logs a new staff account (never its password or token).
func (s *Staff) auditInvite(ctx context.Context, a user.Account, how string) {
	s.audit.Record(ctx, library.AuditEntry{SchoolID: a.SchoolID, Action: library.AuditAccountInvited, Target: a.ID, SubjectID: a.ID,
		Summary: fmt.Sprintf("Invited %s as %s, %s", a.Email, a.Role, how),
		Changes: []library.AuditChange{{Field: "email", After: a.Email}, {Field: "role", After: string(a.Role)}}})
}

// AcceptInvite sets the password of an invited account; each token works
// once. Errors: Invalid (password), NotFound "invite_not_found" (unknown or
// expired), Conflict "invite_used".
func (s *Staff) AcceptInvite(ctx context.Context, token, password string) (user.Account, error) {
	// The rules that need no account first, so a bad password is refused
	// before the token is looked up; the name and email once it is known.
	if msg := user.ValidateNewPassword(password, "", ""); msg != "" {
		return user.Account{}, errs.InvalidField("password", msg)
	}
	hash := auth.HashToken(token)
	inv, err := s.invites.Get(ctx, hash)
	if err != nil {
		return user.Account{}, err
	}
	now := s.clock.Now()
	if !now.Before(inv.ExpiresAt) {
		return user.Account{}, errs.E(errs.NotFound, errs.CodeInviteNotFound, "The invitation does not exist or has expired.")
	}
	a, err := s.targetAccount(ctx, inv.AccountID)
	if err != nil {
		return user.Account{}, err
	}
	if msg := user.ValidateNewPassword(password, a.Email, a.Name); msg != "" {
		return user.Account{}, errs.InvalidField("password", msg)
	}
	// Hash before redeeming, so a failure here leaves the token usable.
	h, err := s.identity.hasher.Hash(password)
	if err != nil {
		return user.Account{}, errs.Wrap(err, "hash password")
	}
	if err := s.invites.Redeem(ctx, hash, now); err != nil {
		return user.Account{}, err
	}
	a.PasswordHash = h
	a.UpdatedAt = now.UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	return a, nil
}

// ManageAccount suspends or unsuspends an account. Suspending ends every
// session of it: its refresh tokens, and its access tokens on their next
// request, for good, so lifting the suspension does not bring them back.
// schoolParam, when not empty, is the school the request acts on (a web
// page's): another school's account is not found.
// Errors: NotFound "account_not_found", Conflict "cannot_suspend_self", as
// scope.
func (s *Staff) ManageAccount(ctx context.Context, schoolParam, accountID string, suspended bool) (user.Account, error) {
	a, err := s.accountWithin(ctx, schoolParam, accountID)
	if err != nil {
		return user.Account{}, err
	}
	if a.ID == user.PrincipalFrom(ctx).AccountID && suspended {
		return user.Account{}, errs.E(errs.Conflict, errs.CodeCannotSuspendSelf, "You cannot suspend your own account.")
	}
	before := accountAuditFields(a)
	a.Suspended = suspended
	a.UpdatedAt = s.clock.Now().UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	what := "Suspended "
	if !suspended {
		what = "Lifted the suspension of "
	}
	s.auditAccount(ctx, before, a, library.AuditAccountChanged, what+cmp.Or(a.Email, a.Name))
	if suspended {
		if err := EndAllSessions(ctx, s.refresh, a.ID, s.clock.Now()); err != nil {
			return user.Account{}, err
		}
	}
	return a, nil
}

// UnlockSignIn lifts the sign-in lock of an account, as a password reset
// does: its failed sign-ins no longer refuse anyone. Admins unlock any
// account; a librarian the students and staff of their school. An account
// of another school is not found, so its existence is not revealed; with
// schoolParam (a web page's school), so is any account outside it.
// Errors: NotFound "account_not_found", Forbidden "forbidden" (an account
// of the librarian's school that is not a student or staff), Unavailable,
// as scope.
func (s *Staff) UnlockSignIn(ctx context.Context, schoolParam, accountID string) (user.Account, error) {
	a, err := s.accountWithin(ctx, schoolParam, accountID)
	if err != nil {
		return user.Account{}, err
	}
	if user.PrincipalFrom(ctx).Role != user.RoleAdmin {
		if !usecase.Reachable(ctx, a.SchoolID) {
			return user.Account{}, user.ErrNotFound(accountID)
		}
		if a.Role != user.RoleStudent && a.Role != user.RoleStaff && a.Role != user.RoleTeacher {
			return user.Account{}, errs.E(errs.Forbidden, errs.CodeForbidden, "Librarians unlock the students, staff and teachers of their school.")
		}
	}
	if err := s.identity.throttle.Lift(ctx, a.Email); err != nil {
		return user.Account{}, err
	}
	s.audit.Record(ctx, library.AuditEntry{SchoolID: a.SchoolID, Action: library.AuditAccountUnlocked, Target: a.ID, SubjectID: a.ID,
		Summary: "Unlocked the sign-in of " + cmp.Or(a.Email, a.Name)})
	return a, nil
}
