package service

import (
	"context"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Users serves profiles. Who may call which method is decided before, by the
// route's policy; methods here act on the caller in ctx.
type Users struct {
	accounts ports.AccountRepository
}

// NewUsers builds the users service.
func NewUsers(accounts ports.AccountRepository) *Users {
	if accounts == nil {
		panic("service.NewUsers: nil dependency")
	}
	return &Users{accounts: accounts}
}

// Me returns the caller's own account.
// Errors: Unauthenticated "unauthorized" (anonymous caller or account gone),
// Unavailable.
func (s *Users) Me(ctx context.Context) (user.Account, error) {
	p := user.PrincipalFrom(ctx)
	if p.IsAnonymous() {
		return user.Account{}, errs.E(errs.Unauthenticated, "unauthorized", "Sign in to see your profile.")
	}
	acct, err := s.accounts.Get(ctx, p.AccountID)
	if errs.Is(err, errs.NotFound) || (err == nil && acct.Deleted) {
		return user.Account{}, errUnknownAccount()
	}
	return acct, err
}
