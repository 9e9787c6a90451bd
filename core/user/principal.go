package user

import "context"

// Principal is the caller of one request, built on the server from the
// stored account (never from token claims), so a role, school or tier change
// acts on the very next request.
type Principal struct {
	AccountID string
	Email     string
	Role      Role
	SchoolID  string
	Tier      Tier
}

// Anonymous is the principal of a request without credentials.
var Anonymous = Principal{}

// SubjectAnonymous is the policy subject of an unauthenticated caller.
const SubjectAnonymous = "anonymous"

// IsAnonymous reports whether p is the anonymous caller.
func (p Principal) IsAnonymous() bool { return p.AccountID == "" }

// Subject is the name policies match on: the role, or "anonymous".
func (p Principal) Subject() string {
	if p.IsAnonymous() {
		return SubjectAnonymous
	}
	return string(p.Role)
}

// PrincipalOf builds the principal of an account.
func PrincipalOf(a Account) Principal {
	return Principal{AccountID: a.ID, Email: a.Email, Role: a.Role, SchoolID: a.SchoolID, Tier: a.Tier}
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller stored in ctx, or Anonymous.
func PrincipalFrom(ctx context.Context) Principal {
	if p, ok := ctx.Value(principalKey{}).(Principal); ok {
		return p
	}
	return Anonymous
}
