package auth_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
)

func TestHashToken(t *testing.T) {
	a1 := auth.HashToken("refresh-token-a")
	a2 := auth.HashToken("refresh-token-a")
	b := auth.HashToken("refresh-token-b")
	if a1 != a2 {
		t.Errorf("HashToken twice = %q and %q, want equal", a1, a2)
	}
	if a1 == b {
		t.Errorf("HashToken(a) = HashToken(b) = %q, want different", a1)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a1) {
		t.Errorf("HashToken() = %q, want 64 lowercase hex digits (SHA-256)", a1)
	}
	if a1 == "refresh-token-a" {
		t.Errorf("HashToken() returned the token itself, want a digest")
	}
	// SHA-256("abc"), a published test vector: the stored key stays stable
	// across releases, so existing sessions survive an upgrade.
	if got, want := auth.HashToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("HashToken(\"abc\") = %q, want %q", got, want)
	}
}

func TestRefreshTokenExpired(t *testing.T) {
	exp := time.Date(2026, 12, 20, 9, 15, 0, 0, time.UTC)
	tok := auth.RefreshToken{ExpiresAt: exp}
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{name: "LongBefore", now: exp.Add(-24 * time.Hour), want: false},
		{name: "OneNanosecondBefore", now: exp.Add(-time.Nanosecond), want: false},
		{name: "Exactly", now: exp, want: true},
		{name: "After", now: exp.Add(time.Nanosecond), want: true},
		{name: "ExactlyOtherZone", now: exp.In(time.FixedZone("CET", 3600)), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tok.Expired(tt.now); got != tt.want {
				t.Errorf("Expired(%v) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
}

func TestRefreshErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode string
	}{
		{name: "Invalid", err: auth.ErrInvalidRefresh(), wantCode: "invalid_refresh_token"},
		{name: "Reused", err: auth.ErrRefreshReused(), wantCode: "refresh_token_reused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := errs.KindOf(tt.err), errs.Unauthenticated; got != want {
				t.Errorf("KindOf() = %q, want %q", got, want)
			}
			if got := errs.CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf() = %q, want %q", got, tt.wantCode)
			}
		})
	}
}
