package porttest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// Exactly one of any number of racing claims of a slot succeeds; another
// slot is claimed independently.
func testExpiryClaimOncePerSlot(t *testing.T, r ports.Repositories) {
	const racers = 20
	slot := base.Truncate(time.Hour)
	c := ctx(t)
	errsOut := make([]error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errsOut[i] = r.Expiry.ClaimSweep(c, slot, base)
		}()
	}
	start.Done()
	done.Wait()
	won := 0
	for i, err := range errsOut {
		if err == nil {
			won++
			continue
		}
		wantErr(t, fmt.Sprintf("ClaimSweep #%d", i), err, errs.Conflict, "sweep_claimed")
	}
	if won != 1 {
		t.Fatalf("%d of %d racing claims of one slot won, want exactly 1", won, racers)
	}
	must(t, "ClaimSweep of the next slot", r.Expiry.ClaimSweep(ctx(t), slot.Add(time.Hour), base))
}

// DeleteExpired removes expired refresh tokens and invitations with their
// rotations and redemptions, in more than one batch, and leaves every live
// record and what describes it.
func testExpiryDeleteExpired(t *testing.T, r ports.Repositories) {
	now := base.Add(100 * 24 * time.Hour)
	const expiredTokens = 520 // more than one batch
	c := ctx(t)
	var expired, live []string
	for i := range expiredTokens + 3 {
		tok := newToken(uuid.NewString(), uuid.NewString())
		if i < expiredTokens {
			tok.ExpiresAt = now.Add(-time.Duration(i+1) * time.Minute)
			if i == 0 {
				tok.ExpiresAt = now // expiry is inclusive
			}
			expired = append(expired, tok.Hash)
		} else {
			tok.ExpiresAt = now.Add(time.Duration(i) * time.Second)
			live = append(live, tok.Hash)
		}
		must(t, "Create token", r.RefreshTokens.Create(c, tok))
	}
	must(t, "ClaimRotation of an expired token", r.RefreshTokens.ClaimRotation(c, expired[1], base))
	must(t, "ClaimRotation of a live token", r.RefreshTokens.ClaimRotation(c, live[0], base))

	newInvite := func(expires time.Time) library.Invite {
		inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: expires, CreatedAt: base}
		must(t, "Create invite", r.Invites.Create(c, inv))
		return inv
	}
	oldInvite, usedOldInvite, liveInvite := newInvite(now.Add(-time.Hour)), newInvite(now.Add(-time.Minute)), newInvite(now.Add(time.Hour))
	must(t, "Redeem", r.Invites.Redeem(c, usedOldInvite.TokenHash, base))
	must(t, "Redeem", r.Invites.Redeem(c, liveInvite.TokenHash, base))

	counts, err := r.Expiry.DeleteExpired(c, now)
	must(t, "DeleteExpired", err)
	if counts["refresh_tokens"] != expiredTokens || counts["invites"] != 2 {
		t.Fatalf("DeleteExpired counts %v, want %d refresh_tokens and 2 invites", counts, expiredTokens)
	}
	for _, h := range expired[:3] {
		_, err := r.RefreshTokens.Get(c, h)
		wantErr(t, "Get an expired token", err, errs.NotFound, "refresh_token_not_found")
	}
	_, err = r.RefreshTokens.RotatedAt(c, expired[1])
	wantErr(t, "RotatedAt of a swept token", err, errs.NotFound, "rotation_not_found")
	for _, h := range live {
		if _, err := r.RefreshTokens.Get(c, h); err != nil {
			t.Fatalf("Get a live token after the sweep: %v", err)
		}
	}
	if _, err := r.RefreshTokens.RotatedAt(c, live[0]); err != nil {
		t.Fatalf("RotatedAt of a live token after the sweep: %v", err)
	}
	for _, inv := range []library.Invite{oldInvite, usedOldInvite} {
		_, err := r.Invites.Get(c, inv.TokenHash)
		wantErr(t, "Get an expired invitation", err, errs.NotFound, "invite_not_found")
	}
	if _, err := r.Invites.Get(c, liveInvite.TokenHash); err != nil {
		t.Fatalf("Get a live invitation after the sweep: %v", err)
	}
	wantErr(t, "Redeem the live invitation again", r.Invites.Redeem(c, liveInvite.TokenHash, base), errs.Conflict, "invite_used")
	// A swept invitation's redemption went with it.
	must(t, "Create the swept invitation again", r.Invites.Create(c, usedOldInvite))
	must(t, "Redeem the recreated invitation", r.Invites.Redeem(c, usedOldInvite.TokenHash, base))

	counts, err = r.Expiry.DeleteExpired(c, now)
	must(t, "DeleteExpired again", err)
	if counts["refresh_tokens"] != 0 || counts["invites"] != 1 {
		t.Fatalf("second DeleteExpired counts %v, want no tokens and the recreated invitation", counts)
	}
}

// Claims expire too: a sweep long after removes old claims, so the slot
// could be claimed again, and keeps recent ones.
func testExpirySweepsOldClaims(t *testing.T, r ports.Repositories) {
	old, recent := base.Truncate(time.Hour), base.Add(30*24*time.Hour).Truncate(time.Hour)
	must(t, "ClaimSweep old", r.Expiry.ClaimSweep(ctx(t), old, base))
	must(t, "ClaimSweep recent", r.Expiry.ClaimSweep(ctx(t), recent, base))
	counts, err := r.Expiry.DeleteExpired(ctx(t), recent)
	must(t, "DeleteExpired", err)
	if counts["sweep_claims"] != 1 {
		t.Fatalf("DeleteExpired counts %v, want 1 sweep claim", counts)
	}
	must(t, "ClaimSweep of the old slot after its claim expired", r.Expiry.ClaimSweep(ctx(t), old, recent))
	wantErr(t, "ClaimSweep of the recent slot", r.Expiry.ClaimSweep(ctx(t), recent, recent), errs.Conflict, "sweep_claimed")
}

// Mailed tokens (password resets, sign-up links) go once expired, used or
// not; live ones stay usable.
func testExpirySweepsMailTokens(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	now := base.Add(100 * 24 * time.Hour)
	newMailToken := func(expires time.Time) auth.MailToken {
		tok := auth.MailToken{Hash: "sha256-" + uuid.NewString(), Purpose: auth.PurposePasswordReset, AccountID: uuid.NewString(), CreatedAt: base, ExpiresAt: expires}
		must(t, "Create mail token", r.MailTokens.Create(c, tok))
		return tok
	}
	old, used, live := newMailToken(now.Add(-time.Hour)), newMailToken(now.Add(-time.Minute)), newMailToken(now.Add(time.Hour))
	if _, err := r.MailTokens.Consume(c, used.Hash, used.Purpose, base); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	counts, err := r.Expiry.DeleteExpired(c, now)
	must(t, "DeleteExpired", err)
	if counts["mail_tokens"] < 1 {
		t.Fatalf("DeleteExpired counts %v, want the expired mail token", counts)
	}
	for _, tok := range []auth.MailToken{old, used} {
		if _, err := r.MailTokens.Get(c, tok.Hash, tok.Purpose); !errs.Is(err, errs.NotFound) {
			t.Errorf("Get an expired mail token after the sweep: %v, want NotFound", err)
		}
	}
	if _, err := r.MailTokens.Consume(c, live.Hash, live.Purpose, now); err != nil {
		t.Fatalf("Consume a live mail token after the sweep: %v", err)
	}
}
