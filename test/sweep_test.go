package test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// Expired refresh tokens and invitations are deleted by a periodic sweep
// that runs once per slot across replicas: two service instances on one
// database sweep the same slot, one of them claims it, and between them
// every expired record goes exactly once while live records and sessions
// stay. (On the embedded store the second instance is the same process
// sweeping again, which is what a second replica's attempt looks like.)
func TestExpiredRecordsSweptOnceAcrossReplicas(t *testing.T) {
	env := testEnv(t, nil)
	a := startService(t, env)
	b := a
	if testStore() == "mongo" {
		b = startService(t, env)
	}
	session := a.login(demoReader, demoPassword)

	// A slot after the one each instance swept at start.
	now := time.Now().Add(3 * time.Hour)
	ctx := context.Background()
	repos := a.App.Repos
	const expiredTokens, expiredInvites = 7, 3
	var expired, live []auth.RefreshToken
	for i := range expiredTokens + 2 {
		tok := auth.RefreshToken{Hash: auth.HashToken(uuid.NewString()), FamilyID: uuid.NewString(), AccountID: uuid.NewString(),
			IssuedAt: now.Add(-24 * time.Hour), ExpiresAt: now.Add(-time.Duration(i+1) * time.Minute)}
		if i >= expiredTokens {
			tok.ExpiresAt = now.Add(5 * time.Hour)
			live = append(live, tok)
		} else {
			expired = append(expired, tok)
		}
		if err := repos.RefreshTokens.Create(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	var expiredInv []library.Invite
	for i := range expiredInvites + 1 {
		inv := library.Invite{TokenHash: auth.HashToken(uuid.NewString()), AccountID: uuid.NewString(), CreatedAt: now.Add(-8 * 24 * time.Hour),
			ExpiresAt: now.Add(-time.Duration(i+1) * time.Hour)}
		if i == expiredInvites {
			inv.ExpiresAt = now.Add(5 * time.Hour)
		} else {
			expiredInv = append(expiredInv, inv)
		}
		if err := repos.Invites.Create(ctx, inv); err != nil {
			t.Fatal(err)
		}
	}

	results := make([]usecase.SweepResult, 2)
	errsOut := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range []*service{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errsOut[i] = s.App.Sweeper.Sweep(ctx, now)
		}()
	}
	wg.Wait()
	claimed, tokens, invites := 0, int64(0), int64(0)
	for i, r := range results {
		if errsOut[i] != nil {
			t.Fatalf("sweep %d: %v", i, errsOut[i])
		}
		if r.Claimed {
			claimed++
		}
		tokens += r.Deleted["refresh_tokens"]
		invites += r.Deleted["invites"]
	}
	if claimed != 1 {
		t.Fatalf("%d instances swept the slot, want exactly 1", claimed)
	}
	if tokens != expiredTokens || invites != expiredInvites {
		t.Fatalf("deleted %d refresh tokens and %d invitations, want %d and %d", tokens, invites, expiredTokens, expiredInvites)
	}
	for _, tok := range expired {
		if _, err := repos.RefreshTokens.Get(ctx, tok.Hash); !errs.Is(err, errs.NotFound) {
			t.Fatalf("expired refresh token after the sweep: %v, want NotFound", err)
		}
	}
	for _, tok := range live {
		if _, err := repos.RefreshTokens.Get(ctx, tok.Hash); err != nil {
			t.Fatalf("live refresh token after the sweep: %v", err)
		}
	}
	for _, inv := range expiredInv {
		if _, err := repos.Invites.Get(ctx, inv.TokenHash); !errs.Is(err, errs.NotFound) {
			t.Fatalf("expired invitation after the sweep: %v, want NotFound", err)
		}
	}
	// The signed-in reader's session is live: it still refreshes, on either
	// instance.
	if r := b.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + session.Refresh + `"}`}); r.Status != 200 {
		t.Fatalf("refresh of a live session after the sweep: %d %s", r.Status, r.Body)
	}

	// The same slot again sweeps nothing anywhere; the next slot sweeps
	// on one instance.
	for _, s := range []*service{a, b} {
		if r, err := s.App.Sweeper.Sweep(ctx, now); err != nil || r.Claimed {
			t.Fatalf("a second sweep of the slot: claimed %v, %v; want it refused", r.Claimed, err)
		}
	}
	if r, err := b.App.Sweeper.Sweep(ctx, now.Add(time.Hour)); err != nil || !r.Claimed || r.Deleted["refresh_tokens"] != 0 {
		t.Fatalf("the next slot: %+v, %v; want it claimed with nothing left to delete", r, err)
	}
}
