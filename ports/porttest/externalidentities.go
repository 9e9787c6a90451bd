package porttest

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ = register("ExternalIdentities", ExternalIdentities)

// ExternalIdentities checks the ports.ExternalIdentityRepository contract.
// newRepos must return empty repositories that no other subtest sees.
func ExternalIdentities(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	tests := []struct {
		name string
		run  func(t *testing.T, r ports.Repositories)
	}{
		{"LinkGetUnlink", testExternalIdentityLinkGetUnlink},
		{"OneAccountPerSubject", testExternalIdentityOneAccountPerSubject},
		{"OneSubjectPerIssuer", testExternalIdentityOneSubjectPerIssuer},
		{"RaceForOneAccount", testExternalIdentityRace},
		{"DeleteByAccount", testExternalIdentityDeleteByAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

const (
	issuerA = "https://idp.a.example.org"
	issuerB = "https://idp.b.example.org/realms/x"
)

func testExternalIdentityLinkGetUnlink(t *testing.T, r ports.Repositories) {
	l := user.ExternalIdentity{Issuer: issuerA, Subject: "sub 1", AccountID: uuid.NewString(), CreatedAt: base}
	must(t, "Link", r.ExternalIdentities.Link(ctx(t), l))
	got, err := r.ExternalIdentities.Get(ctx(t), issuerA, "sub 1")
	must(t, "Get", err)
	if got.Issuer != l.Issuer || got.Subject != l.Subject || got.AccountID != l.AccountID || !sameTime(got.CreatedAt, base) {
		t.Fatalf("Get = %+v, want %+v", got, l)
	}
	// The subject alone, or the issuer with another subject, names nothing.
	_, err = r.ExternalIdentities.Get(ctx(t), issuerB, "sub 1")
	wantErr(t, "Get of another issuer", err, errs.NotFound, "external_identity_not_found")
	_, err = r.ExternalIdentities.Get(ctx(t), issuerA, "sub")
	wantErr(t, "Get of another subject", err, errs.NotFound, "external_identity_not_found")
	must(t, "Unlink", r.ExternalIdentities.Unlink(ctx(t), issuerA, "sub 1"))
	must(t, "Unlink again", r.ExternalIdentities.Unlink(ctx(t), issuerA, "sub 1"))
	_, err = r.ExternalIdentities.Get(ctx(t), issuerA, "sub 1")
	wantErr(t, "Get after Unlink", err, errs.NotFound, "external_identity_not_found")
	// Unlinked, the subject can be linked anew.
	must(t, "Link after Unlink", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "sub 1", AccountID: uuid.NewString(), CreatedAt: base}))
}

func testExternalIdentityOneAccountPerSubject(t *testing.T, r ports.Repositories) {
	first := uuid.NewString()
	must(t, "Link", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "s", AccountID: first, CreatedAt: base}))
	err := r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "s", AccountID: uuid.NewString(), CreatedAt: base})
	wantErr(t, "Link of a linked subject to another account", err, errs.Conflict, "external_identity_exists")
	// The same subject of another issuer is another person.
	must(t, "Link of issuer B", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerB, Subject: "s", AccountID: uuid.NewString(), CreatedAt: base}))
	if got, err := r.ExternalIdentities.Get(ctx(t), issuerA, "s"); err != nil || got.AccountID != first {
		t.Fatalf("Get = %+v, %v; want the first account %s", got, err, first)
	}
}

func testExternalIdentityOneSubjectPerIssuer(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	must(t, "Link", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "s1", AccountID: acct, CreatedAt: base}))
	err := r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "s2", AccountID: acct, CreatedAt: base})
	wantErr(t, "Link of a second subject of the issuer", err, errs.Conflict, "external_identity_exists")
	_, err = r.ExternalIdentities.Get(ctx(t), issuerA, "s2")
	wantErr(t, "Get of the refused subject", err, errs.NotFound, "external_identity_not_found")
	must(t, "Link of another issuer", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerB, Subject: "s2", AccountID: acct, CreatedAt: base}))
}

// Many subjects of one issuer race to link one account: exactly one wins.
func testExternalIdentityRace(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	const racers = 30
	c := ctx(t)
	errCh := make(chan error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errCh <- r.ExternalIdentities.Link(c, user.ExternalIdentity{Issuer: issuerA, Subject: uuid.NewString() + string(rune('a'+i%26)), AccountID: acct, CreatedAt: base})
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)
	wins := 0
	for err := range errCh {
		switch {
		case err == nil:
			wins++
		case errs.KindOf(err) == errs.Conflict && errs.CodeOf(err) == "external_identity_exists":
		default:
			t.Errorf("Link: unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d of %d subjects linked the account, want 1", wins, racers)
	}
}

func testExternalIdentityDeleteByAccount(t *testing.T, r ports.Repositories) {
	gone, kept := uuid.NewString(), uuid.NewString()
	must(t, "Link A", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "g", AccountID: gone, CreatedAt: base}))
	must(t, "Link B", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerB, Subject: "g", AccountID: gone, CreatedAt: base}))
	must(t, "Link kept", r.ExternalIdentities.Link(ctx(t), user.ExternalIdentity{Issuer: issuerA, Subject: "k", AccountID: kept, CreatedAt: base}))
	must(t, "DeleteByAccount", r.ExternalIdentities.DeleteByAccount(ctx(t), gone))
	must(t, "DeleteByAccount again", r.ExternalIdentities.DeleteByAccount(ctx(t), gone))
	for _, iss := range []string{issuerA, issuerB} {
		_, err := r.ExternalIdentities.Get(ctx(t), iss, "g")
		wantErr(t, "Get of a deleted account's link", err, errs.NotFound, "external_identity_not_found")
	}
	if got, err := r.ExternalIdentities.Get(ctx(t), issuerA, "k"); err != nil || got.AccountID != kept {
		t.Fatalf("another account's link after DeleteByAccount: %+v, %v", got, err)
	}
}
