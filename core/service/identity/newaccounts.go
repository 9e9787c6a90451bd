package identity

// Creating accounts with a password: one by one, several sharing one
// password, and the bootstrap admin.

import (
	"context"
	"fmt"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// NewAccountInput describes an account to create with a password.
type NewAccountInput struct {
	Email    string
	Password string
	Name     string
	Role     user.Role
	SchoolID string
	Tier     user.Tier
}

// CreateAccount validates the input, hashes the password and stores the
// account. Errors: Invalid (fields), Conflict "account_exists", Unavailable.
func (s *Identity) CreateAccount(ctx context.Context, in NewAccountInput) (user.Account, error) {
	acct, err := s.validAccount(ctx, in)
	if err != nil {
		return user.Account{}, err
	}
	hash, err := s.hasher.Hash(in.Password)
	if err != nil {
		return user.Account{}, errs.Wrap(err, "hash password")
	}
	acct.PasswordHash = hash
	if err := s.accounts.Create(ctx, acct); err != nil {
		return user.Account{}, err
	}
	return acct, nil
}

// CreateAccountsSharingPassword creates the accounts of ins, which all
// sign in with password (their own Password fields are not read), and
// hashes it once: a hash costs about a tenth of a second of CPU by design,
// and accounts seeded with one published password (the demo school's)
// would otherwise pay it once each, and not at all when every email is
// taken already. An account whose email is taken is left as it is. It
// returns the accounts it created.
// Errors: as CreateAccount, but Conflict "account_exists".
func (s *Identity) CreateAccountsSharingPassword(ctx context.Context, password string, ins []NewAccountInput) ([]user.Account, error) {
	accts := make([]user.Account, 0, len(ins))
	for _, in := range ins {
		in.Password = password
		acct, err := s.validAccount(ctx, in)
		if err != nil {
			return nil, err
		}
		// An account already there is left alone; when every one is, the
		// hash is not worth its tenth of a second (every restart of the
		// demo school asks again).
		switch _, err := s.accounts.GetByEmail(ctx, acct.Email); {
		case errs.Is(err, errs.NotFound):
			accts = append(accts, acct)
		case err != nil:
			return nil, err
		}
	}
	if len(accts) == 0 {
		return []user.Account{}, nil
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return nil, errs.Wrap(err, "hash password")
	}
	created := accts[:0]
	for _, acct := range accts {
		acct.PasswordHash = hash
		switch err := s.accounts.Create(ctx, acct); {
		case err == nil:
			created = append(created, acct)
		case !errs.Is(err, errs.Conflict):
			return nil, err
		}
	}
	return created, nil
}

// validAccount is the account in describes, validated (the password
// included) and its school checked; not stored, without a password hash.
// Errors: Invalid (fields), NotFound "school_not_found".
func (s *Identity) validAccount(ctx context.Context, in NewAccountInput) (user.Account, error) {
	acct, err := s.newAccount(in)
	if err != nil {
		return user.Account{}, err
	}
	return acct, s.checkSchool(ctx, acct)
}

// newAccount validates in (the password included) and returns the account
// it describes, not stored and without a password hash.
// Errors: Invalid (fields).
func (s *Identity) newAccount(in NewAccountInput) (user.Account, error) {
	fields := errs.FieldErrors{}
	if msg := user.ValidateNewPassword(in.Password, in.Email, in.Name); msg != "" {
		fields.Add("password", msg)
	}
	acct, err := user.NewAccount(user.NewAccountParams{
		ID: s.newID(), Email: in.Email, Name: in.Name, Role: in.Role,
		SchoolID: in.SchoolID, Tier: in.Tier, Now: s.now(),
	})
	if e, ok := errs.As(err); ok {
		if f, ok := e.Details["fields"].(map[string]any); ok {
			for k, v := range f {
				fields.Add(k, fmt.Sprint(v))
			}
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	return acct, nil
}

// checkSchool returns nil when acct has no school or its school exists.
// Errors: NotFound "school_not_found".
func (s *Identity) checkSchool(ctx context.Context, acct user.Account) error {
	if acct.SchoolID == "" {
		return nil
	}
	_, err := s.schools.Get(ctx, acct.SchoolID)
	return err
}

// EnsureAdmin creates an admin account with email and password unless an
// account with that email exists. It reports whether it created one; several
// replicas starting at once create exactly one.
func (s *Identity) EnsureAdmin(ctx context.Context, email, password, name string) (bool, error) {
	_, err := s.accounts.GetByEmail(ctx, user.NormalizeEmail(email))
	if err == nil {
		return false, nil
	}
	if !errs.Is(err, errs.NotFound) {
		return false, err
	}
	_, err = s.CreateAccount(ctx, NewAccountInput{Email: email, Password: password, Name: name, Role: user.RoleAdmin, Tier: user.TierPremium})
	if errs.Is(err, errs.Conflict) {
		return false, nil
	}
	return err == nil, err
}
