package porttest

// The refresh token and signing key ports' contracts, run by the
// Repositories suite.

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

func newToken(accountID, familyID string) auth.RefreshToken {
	return auth.RefreshToken{
		Hash:      auth.HashToken(uuid.NewString()),
		FamilyID:  familyID,
		AccountID: accountID,
		IssuedAt:  base,
		ExpiresAt: base.Add(30 * 24 * time.Hour),
	}
}

func checkToken(t *testing.T, call string, got, want auth.RefreshToken) {
	t.Helper()
	if !sameTime(got.IssuedAt, want.IssuedAt) || !sameTime(got.ExpiresAt, want.ExpiresAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.IssuedAt, got.ExpiresAt, want.IssuedAt, want.ExpiresAt)
	}
	got.IssuedAt, got.ExpiresAt = want.IssuedAt, want.ExpiresAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func testTokenCreateGet(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	got, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get", err)
	checkToken(t, "Get", got, tok)

	// A rotated token is still readable.
	must(t, "ClaimRotation", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, base))
	got, err = r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get after rotation", err)
	checkToken(t, "Get after rotation", got, tok)
}

func testTokenCreateDuplicate(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	dup := tok
	dup.AccountID = uuid.NewString()
	wantErr(t, "Create same hash", r.RefreshTokens.Create(ctx(t), dup), errs.Conflict, "refresh_token_exists")
	got, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
	must(t, "Get", err)
	checkToken(t, "Get after conflict", got, tok)
}

func testTokenGetMissing(t *testing.T, r ports.Repositories) {
	_, err := r.RefreshTokens.Get(ctx(t), auth.HashToken("never issued"))
	wantErr(t, "Get", err, errs.NotFound, "refresh_token_not_found")
}

func testTokenRotatedAt(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	_, err := r.RefreshTokens.RotatedAt(ctx(t), tok.Hash)
	wantErr(t, "RotatedAt before the claim", err, errs.NotFound, "rotation_not_found")
	at := base.Add(42 * time.Second)
	must(t, "ClaimRotation", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, at))
	// A losing claim must not move the recorded time.
	_ = r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, at.Add(time.Hour))
	got, err := r.RefreshTokens.RotatedAt(ctx(t), tok.Hash)
	must(t, "RotatedAt", err)
	if !got.Truncate(time.Millisecond).Equal(at.Truncate(time.Millisecond)) { // MongoDB keeps milliseconds
		t.Errorf("RotatedAt = %v, want %v", got, at)
	}
}

func testTokenClaimRotationOnce(t *testing.T, r ports.Repositories) {
	tok := newToken(uuid.NewString(), uuid.NewString())
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))

	const racers = 50
	c := ctx(t)
	errCh := make(chan error, racers)
	var start sync.WaitGroup
	start.Add(1)
	var done sync.WaitGroup
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errCh <- r.RefreshTokens.ClaimRotation(c, tok.Hash, base.Add(time.Duration(i)*time.Millisecond))
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)

	wins, reused := 0, 0
	for err := range errCh {
		switch {
		case err == nil:
			wins++
		case errs.KindOf(err) == errs.Conflict && errs.CodeOf(err) == "refresh_token_reused":
			reused++
		default:
			t.Errorf("ClaimRotation: unexpected error %v (kind %q, code %q)", err, errs.KindOf(err), errs.CodeOf(err))
		}
	}
	if wins != 1 || reused != racers-1 {
		t.Fatalf("%d racing ClaimRotation: got %d nil and %d refresh_token_reused, want 1 and %d", racers, wins, reused, racers-1)
	}
	wantErr(t, "ClaimRotation afterwards", r.RefreshTokens.ClaimRotation(ctx(t), tok.Hash, base), errs.Conflict, "refresh_token_reused")
}

func testTokenClaimRotationPerHash(t *testing.T, r ports.Repositories) {
	family := uuid.NewString()
	a, b := newToken(uuid.NewString(), family), newToken(uuid.NewString(), family)
	must(t, "Create a", r.RefreshTokens.Create(ctx(t), a))
	must(t, "Create b", r.RefreshTokens.Create(ctx(t), b))
	must(t, "ClaimRotation a", r.RefreshTokens.ClaimRotation(ctx(t), a.Hash, base))
	must(t, "ClaimRotation b after a", r.RefreshTokens.ClaimRotation(ctx(t), b.Hash, base))
}

func testTokenRevokeFamily(t *testing.T, r ports.Repositories) {
	family, other := uuid.NewString(), uuid.NewString()
	tok := newToken(uuid.NewString(), family)
	must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))

	revoked, err := r.RefreshTokens.FamilyRevoked(ctx(t), family)
	must(t, "FamilyRevoked before", err)
	if revoked {
		t.Fatalf("FamilyRevoked before RevokeFamily = true, want false")
	}
	must(t, "RevokeFamily", r.RefreshTokens.RevokeFamily(ctx(t), family, base))
	must(t, "RevokeFamily again", r.RefreshTokens.RevokeFamily(ctx(t), family, base.Add(time.Hour)))

	revoked, err = r.RefreshTokens.FamilyRevoked(ctx(t), family)
	must(t, "FamilyRevoked after", err)
	if !revoked {
		t.Fatalf("FamilyRevoked after RevokeFamily = false, want true")
	}
	revoked, err = r.RefreshTokens.FamilyRevoked(ctx(t), other)
	must(t, "FamilyRevoked other", err)
	if revoked {
		t.Fatalf("FamilyRevoked of an untouched family = true, want false")
	}
}

func testTokenDeleteByAccount(t *testing.T, r ports.Repositories) {
	alice, bob := uuid.NewString(), uuid.NewString()
	a1, a2 := newToken(alice, uuid.NewString()), newToken(alice, uuid.NewString())
	b1 := newToken(bob, uuid.NewString())
	for _, tok := range []auth.RefreshToken{a1, a2, b1} {
		must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	}
	must(t, "DeleteByAccount", r.RefreshTokens.DeleteByAccount(ctx(t), alice))
	for _, tok := range []auth.RefreshToken{a1, a2} {
		_, err := r.RefreshTokens.Get(ctx(t), tok.Hash)
		wantErr(t, "Get deleted token", err, errs.NotFound, "refresh_token_not_found")
	}
	got, err := r.RefreshTokens.Get(ctx(t), b1.Hash)
	must(t, "Get other account's token", err)
	checkToken(t, "Get other account's token", got, b1)

	must(t, "DeleteByAccount again", r.RefreshTokens.DeleteByAccount(ctx(t), alice))
	must(t, "DeleteByAccount without tokens", r.RefreshTokens.DeleteByAccount(ctx(t), uuid.NewString()))
}

func testTokenRevokeAccountFamilies(t *testing.T, r ports.Repositories) {
	alice, bob := uuid.NewString(), uuid.NewString()
	kept, ended, rotated, bobs := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	// rotated has two records, as after a refresh; ended is revoked
	// already.
	for _, tok := range []auth.RefreshToken{newToken(alice, kept), newToken(alice, ended), newToken(alice, rotated), newToken(alice, rotated), newToken(bob, bobs)} {
		must(t, "Create", r.RefreshTokens.Create(ctx(t), tok))
	}
	must(t, "RevokeFamily", r.RefreshTokens.RevokeFamily(ctx(t), ended, base))
	revokedIs := func(call, family string, want bool) {
		t.Helper()
		got, err := r.RefreshTokens.FamilyRevoked(ctx(t), family)
		must(t, call, err)
		if got != want {
			t.Errorf("%s: FamilyRevoked = %v, want %v", call, got, want)
		}
	}

	must(t, "RevokeAccountFamilies keeping one", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, kept, base.Add(time.Hour)))
	revokedIs("the kept family", kept, false)
	revokedIs("a revoked family", ended, true)
	revokedIs("a family with two records", rotated, true)
	revokedIs("another account's family", bobs, false)

	must(t, "RevokeAccountFamilies again", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, kept, base.Add(2*time.Hour)))
	must(t, "RevokeAccountFamilies keeping none", r.RefreshTokens.RevokeAccountFamilies(ctx(t), alice, "", base.Add(3*time.Hour)))
	revokedIs("the formerly kept family", kept, true)
	revokedIs("another account's family after", bobs, false)
	must(t, "RevokeAccountFamilies without tokens", r.RefreshTokens.RevokeAccountFamilies(ctx(t), uuid.NewString(), "", base))
}

// newKey returns a key whose PEM holds bytes that a text round trip would
// mangle (NUL, invalid UTF-8, CR LF).
func newKey(i int) auth.SigningKey {
	pem := fmt.Appendf(nil, "-----BEGIN PRIVATE KEY-----\r\nkey %d \x00\xff\xfe\n-----END PRIVATE KEY-----\n", i)
	return auth.SigningKey{
		ID:            fmt.Sprintf("kid-%02d-%s", i, uuid.NewString()[:8]),
		Algorithm:     "RS256",
		PrivateKeyPEM: pem,
		CreatedAt:     base.Add(time.Duration(i) * time.Second),
	}
}

func sameKey(a, b auth.SigningKey) bool {
	return a.ID == b.ID && a.Algorithm == b.Algorithm && bytes.Equal(a.PrivateKeyPEM, b.PrivateKeyPEM) && sameTime(a.CreatedAt, b.CreatedAt)
}

func testKeyListEmpty(t *testing.T, r ports.Repositories) {
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) != 0 {
		t.Fatalf("List on empty = %d keys, want 0", len(keys))
	}
}

func testKeyEnsureActiveRace(t *testing.T, r ports.Repositories) {
	const racers = 20
	candidates := make([]auth.SigningKey, racers)
	for i := range candidates {
		candidates[i] = newKey(i)
	}
	c := ctx(t)
	results := make([]auth.SigningKey, racers)
	errsOut := make([]error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			results[i], errsOut[i] = r.SigningKeys.EnsureActive(c, candidates[i])
		}()
	}
	start.Done()
	done.Wait()

	for i, err := range errsOut {
		must(t, fmt.Sprintf("EnsureActive #%d", i), err)
	}
	winner := -1
	for i, k := range candidates {
		if k.ID == results[0].ID {
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("EnsureActive returned kid %q, which no candidate had", results[0].ID)
	}
	for i, k := range results {
		if !sameKey(k, candidates[winner]) {
			t.Fatalf("EnsureActive #%d returned %q, want the same key as everyone (%q)", i, k.ID, candidates[winner].ID)
		}
	}

	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 || !sameKey(keys[0], candidates[winner]) {
		t.Fatalf("List()[0] is not the active key %q (got %d keys)", candidates[winner].ID, len(keys))
	}
	if !bytes.Equal(keys[0].PrivateKeyPEM, candidates[winner].PrivateKeyPEM) {
		t.Fatalf("List()[0].PrivateKeyPEM = %q, want %q", keys[0].PrivateKeyPEM, candidates[winner].PrivateKeyPEM)
	}
	for _, k := range keys[1:] {
		if k.ID == keys[0].ID {
			t.Fatalf("List has the active key %q twice", k.ID)
		}
	}
}

func testKeyEnsureActiveKeepsFirst(t *testing.T, r ports.Repositories) {
	first, second := newKey(1), newKey(2)
	got, err := r.SigningKeys.EnsureActive(ctx(t), first)
	must(t, "EnsureActive first", err)
	if !sameKey(got, first) {
		t.Fatalf("EnsureActive on empty returned %q, want the candidate %q", got.ID, first.ID)
	}
	got, err = r.SigningKeys.EnsureActive(ctx(t), second)
	must(t, "EnsureActive second", err)
	if !sameKey(got, first) {
		t.Fatalf("EnsureActive with an active key returned %q, want the active %q", got.ID, first.ID)
	}
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 || !sameKey(keys[0], first) {
		t.Fatalf("List()[0] is not %q (got %d keys)", first.ID, len(keys))
	}
}

func testKeyNoAliasing(t *testing.T, r ports.Repositories) {
	k := newKey(7)
	want := bytes.Clone(k.PrivateKeyPEM)
	got, err := r.SigningKeys.EnsureActive(ctx(t), k)
	must(t, "EnsureActive", err)
	k.PrivateKeyPEM[0] = 'X'   // the caller's slice
	got.PrivateKeyPEM[1] = 'Y' // the returned slice
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	if len(keys) == 0 {
		t.Fatal("List returned no keys, want the active one")
	}
	keys[0].PrivateKeyPEM[2] = 'Z'
	keys, err = r.SigningKeys.List(ctx(t))
	must(t, "List again", err)
	if !bytes.Equal(keys[0].PrivateKeyPEM, want) {
		t.Fatalf("stored PEM after callers changed their copies = %q, want %q", keys[0].PrivateKeyPEM, want)
	}
}

// ReplacePrivateKey changes the stored bytes of one key and nothing else:
// not its id, algorithm, creation time or which key is active.
func testKeyReplacePrivateKey(t *testing.T, r ports.Repositories) {
	active, other := newKey(1), newKey(2)
	_, err := r.SigningKeys.EnsureActive(ctx(t), active)
	must(t, "EnsureActive", err)
	replaced := other
	replaced.ID = active.ID
	replaced.Algorithm = "changed"
	replaced.CreatedAt = base.Add(time.Hour)
	must(t, "ReplacePrivateKey", r.SigningKeys.ReplacePrivateKey(ctx(t), replaced))
	keys, err := r.SigningKeys.List(ctx(t))
	must(t, "List", err)
	want := active
	want.PrivateKeyPEM = other.PrivateKeyPEM
	if len(keys) != 1 || !sameKey(keys[0], want) {
		t.Fatalf("List after ReplacePrivateKey = %+v, want only %q with the new bytes and its own id, algorithm and time", keys, active.ID)
	}
	err = r.SigningKeys.ReplacePrivateKey(ctx(t), newKey(3))
	wantErr(t, "ReplacePrivateKey of an unknown key", err, errs.NotFound, "signing_key_not_found")
}
