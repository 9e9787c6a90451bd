package service_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

// Within the grace window a second use of a rotated token is refused but the
// winner's session goes on; after it, reuse revokes the family.
func TestRefreshReuseGrace(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{ReuseGrace: 10 * time.Second})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	s1 := f.login(t, "ada@example.org", password)
	s2, err := f.id.Refresh(ctx, s1.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}

	f.clock.Set(t0.Add(9 * time.Second))
	_, err = f.id.Refresh(ctx, s1.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "refresh_token_reused")
	s3, err := f.id.Refresh(ctx, s2.RefreshToken)
	if err != nil {
		t.Fatalf("the winner's token after a racing reuse: %v, want it to keep working", err)
	}

	f.clock.Set(t0.Add(time.Minute))
	_, err = f.id.Refresh(ctx, s1.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "refresh_token_reused")
	_, err = f.id.Refresh(ctx, s3.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
}

// flakyAccounts fails Get while failing is set, as a database outage would.
type flakyAccounts struct {
	ports.AccountRepository
	failing atomic.Bool
}

func (a *flakyAccounts) Get(ctx context.Context, id string) (user.Account, error) {
	if a.failing.Load() {
		return user.Account{}, errs.E(errs.Unavailable, "unavailable", "The database is unavailable.")
	}
	return a.AccountRepository.Get(ctx, id)
}

// A failure before the rotation claim leaves the token usable: the client's
// retry after an outage succeeds instead of being taken for reuse.
func TestRefreshOutageDoesNotConsumeToken(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s1 := f.login(t, "ada@example.org", password)

	flaky := &flakyAccounts{AccountRepository: f.repos.Accounts}
	repos := f.repos
	repos.Accounts = flaky
	deps := wire.Identity(repos, portfake.Tokens{}, f.hasher, f.throttle)
	deps.Now = f.clock.Now
	id := identity.NewIdentity(deps, identity.IdentityConfig{RefreshTTL: refreshTTL})

	flaky.failing.Store(true)
	_, err := id.Refresh(context.Background(), s1.RefreshToken)
	wantErr(t, err, errs.Unavailable, "unavailable")
	flaky.failing.Store(false)
	if _, err := id.Refresh(context.Background(), s1.RefreshToken); err != nil {
		t.Fatalf("retry after the outage: %v, want success", err)
	}
}
