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

// authenticated is what ctx carries: the caller and, when the request was
// authenticated, the account as it was read for that.
type authenticated struct {
	principal Principal
	account   *Account
	session   string
}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, authenticated{principal: p})
}

// WithAccount returns ctx carrying the principal of a and a itself, the
// account read while authenticating this request; use cases that only show
// the caller's own account need not read it a second time.
func WithAccount(ctx context.Context, a Account) context.Context {
	return context.WithValue(ctx, principalKey{}, authenticated{principal: PrincipalOf(a), account: &a})
}

// WithSession returns ctx carrying the principal of a, a itself and the
// session the request's access token belongs to (its refresh-token
// family), so a use case can end or keep that one session.
func WithSession(ctx context.Context, a Account, session string) context.Context {
	return context.WithValue(ctx, principalKey{}, authenticated{principal: PrincipalOf(a), account: &a, session: session})
}

// SessionFrom returns the session stored by WithSession; "" when the
// request has none (anonymous, or a token of an external issuer).
func SessionFrom(ctx context.Context) string {
	if v, ok := ctx.Value(principalKey{}).(authenticated); ok {
		return v.session
	}
	return ""
}

// PrincipalFrom returns the caller stored in ctx, or Anonymous.
func PrincipalFrom(ctx context.Context) Principal {
	if v, ok := ctx.Value(principalKey{}).(authenticated); ok {
		return v.principal
	}
	return Anonymous
}

// AccountFrom returns the account stored by WithAccount, read when this
// request was authenticated; false when there is none.
func AccountFrom(ctx context.Context) (Account, bool) {
	if v, ok := ctx.Value(principalKey{}).(authenticated); ok && v.account != nil {
		return *v.account, true
	}
	return Account{}, false
}

type addressKey struct{}

// WithAddress returns ctx carrying the client address the request came
// from, as the service resolved it (through trusted proxies), for the
// audit log's "from where".
func WithAddress(ctx context.Context, address string) context.Context {
	return context.WithValue(ctx, addressKey{}, address)
}

// AddressFrom returns the address stored by WithAddress; "" for work no
// request started (a background job).
func AddressFrom(ctx context.Context) string {
	a, _ := ctx.Value(addressKey{}).(string)
	return a
}
