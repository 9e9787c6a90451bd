// Package memrepo implements the ports repositories in memory, for unit tests
// and for running the service without a database. Every store guards its maps
// with a mutex and hands out copies, so callers never share state with it.
package memrepo

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// New returns a fresh, empty set of in-memory repositories.
func New() ports.Repositories {
	schools := NewSchools()
	accounts := NewAccounts()
	lib := NewLibrary(schools)
	return ports.Repositories{
		Accounts:      accounts,
		Schools:       schools,
		RefreshTokens: NewRefreshTokens(),
		SigningKeys:   NewSigningKeys(),
		Books:         NewBooks(),
		ReadingLists:  NewReadingLists(),
		Progress:      NewProgress(),
		Students:      Students{lib: lib, accounts: accounts},
		Invites:       Invites{lib},
		Holdings:      Holdings{lib},
		Loans:         Loans{lib},
		ActiveLoans:   ActiveLoans{lib},
		Health:        Health{},
	}
}

// Compile-time checks that every store satisfies its port.
var (
	_ ports.AccountRepository      = (*Accounts)(nil)
	_ ports.SchoolRepository       = (*Schools)(nil)
	_ ports.RefreshTokenRepository = (*RefreshTokens)(nil)
	_ ports.SigningKeyRepository   = (*SigningKeys)(nil)
	_ ports.BookRepository         = (*Books)(nil)
	_ ports.ReadingListRepository  = (*ReadingLists)(nil)
	_ ports.ProgressRepository     = (*Progress)(nil)
	_ ports.StudentRepository      = Students{}
	_ ports.InviteRepository       = Invites{}
	_ ports.HoldingsRepository     = Holdings{}
	_ ports.LoanRepository         = Loans{}
	_ ports.ActiveLoanRepository   = ActiveLoans{}
	_ ports.Pinger                 = Health{}
)

// Accounts is an in-memory ports.AccountRepository. Accounts without an
// email have no entry in idByEmail, so they never clash with each other and
// GetByEmail("") finds none of them.
type Accounts struct {
	mu        sync.Mutex
	byID      map[string]user.Account
	idByEmail map[string]string // only non-empty emails
}

// NewAccounts returns an empty account store.
func NewAccounts() *Accounts {
	return &Accounts{byID: map[string]user.Account{}, idByEmail: map[string]string{}}
}

// Create implements ports.AccountRepository.
func (r *Accounts) Create(_ context.Context, a user.Account) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[a.ID]; ok {
		return user.ErrEmailTaken()
	}
	if _, ok := r.idByEmail[a.Email]; ok && a.Email != "" {
		return user.ErrEmailTaken()
	}
	r.byID[a.ID] = a
	r.indexEmail(a)
	return nil
}

// indexEmail records a's email, if it has one. The caller holds r.mu.
func (r *Accounts) indexEmail(a user.Account) {
	if a.Email != "" {
		r.idByEmail[a.Email] = a.ID
	}
}

// unindexEmail forgets a's email while it still names a. The caller holds
// r.mu.
func (r *Accounts) unindexEmail(a user.Account) {
	if a.Email != "" && r.idByEmail[a.Email] == a.ID {
		delete(r.idByEmail, a.Email)
	}
}

// Get implements ports.AccountRepository.
func (r *Accounts) Get(_ context.Context, id string) (user.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byID[id]
	if !ok {
		return user.Account{}, user.ErrNotFound(id)
	}
	return a, nil
}

// GetByEmail implements ports.AccountRepository.
func (r *Accounts) GetByEmail(_ context.Context, email string) (user.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.idByEmail[email]
	if !ok {
		return user.Account{}, errs.E(errs.NotFound, "account_not_found", "No account with this email exists.")
	}
	return r.byID[id], nil
}

// Update implements ports.AccountRepository.
func (r *Accounts) Update(_ context.Context, a user.Account) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.byID[a.ID]
	if !ok {
		return user.ErrNotFound(a.ID)
	}
	if owner, ok := r.idByEmail[a.Email]; ok && a.Email != "" && owner != a.ID {
		return user.ErrEmailTaken()
	}
	r.unindexEmail(old)
	r.byID[a.ID] = a
	r.indexEmail(a)
	return nil
}

// Count implements ports.AccountRepository.
func (r *Accounts) Count(context.Context) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(len(r.byID)), nil
}

// Delete implements ports.AccountRepository. A missing account is not an
// error. The email is freed only while it still names this account.
func (r *Accounts) Delete(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byID[id]
	if !ok {
		return nil
	}
	delete(r.byID, id)
	r.unindexEmail(a)
	return nil
}

// ListBySchool implements ports.AccountRepository: by name, then id, byte
// by byte as MongoDB without collation sorts.
func (r *Accounts) ListBySchool(_ context.Context, schoolID string, roles []user.Role) ([]user.Account, error) {
	r.mu.Lock()
	out := []user.Account{}
	for _, a := range r.byID {
		if a.SchoolID == schoolID && (len(roles) == 0 || slices.Contains(roles, a.Role)) {
			out = append(out, a)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b user.Account) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// ListDeleted implements ports.AccountRepository, ordered by id as the
// MongoDB store returns them.
func (r *Accounts) ListDeleted(context.Context) ([]user.Account, error) {
	r.mu.Lock()
	out := []user.Account{}
	for _, a := range r.byID {
		if a.Deleted {
			out = append(out, a)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b user.Account) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Schools is an in-memory ports.SchoolRepository.
type Schools struct {
	mu         sync.Mutex
	byID       map[string]library.School
	idByDomain map[string]string
}

// NewSchools returns an empty school store.
func NewSchools() *Schools {
	return &Schools{byID: map[string]library.School{}, idByDomain: map[string]string{}}
}

// Create implements ports.SchoolRepository.
func (r *Schools) Create(_ context.Context, s library.School) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[s.ID]; ok {
		return library.ErrDomainTaken()
	}
	if _, ok := r.idByDomain[s.Domain]; ok {
		return library.ErrDomainTaken()
	}
	r.byID[s.ID] = s
	r.idByDomain[s.Domain] = s.ID
	return nil
}

// Get implements ports.SchoolRepository.
func (r *Schools) Get(_ context.Context, id string) (library.School, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.byID[id]
	if !ok {
		return library.School{}, library.ErrSchoolNotFound()
	}
	return s, nil
}

// GetByDomain implements ports.SchoolRepository.
func (r *Schools) GetByDomain(_ context.Context, domain string) (library.School, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.idByDomain[domain]
	if !ok {
		return library.School{}, library.ErrSchoolNotFound()
	}
	return r.byID[id], nil
}

// SaveSettings implements ports.SchoolRepository.
func (r *Schools) SaveSettings(_ context.Context, id string, st library.Settings) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.byID[id]
	if !ok {
		return library.ErrSchoolNotFound()
	}
	s.Settings = st
	r.byID[id] = s
	return nil
}

// List implements ports.SchoolRepository.
func (r *Schools) List(context.Context) ([]library.School, error) {
	r.mu.Lock()
	out := make([]library.School, 0, len(r.byID))
	for _, s := range r.byID {
		out = append(out, s)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// RefreshTokens is an in-memory ports.RefreshTokenRepository.
type RefreshTokens struct {
	mu      sync.Mutex
	byHash  map[string]auth.RefreshToken
	rotated map[string]time.Time // hash -> when the rotation was claimed
	revoked map[string]time.Time // family id -> when it was revoked
}

// NewRefreshTokens returns an empty refresh-token store.
func NewRefreshTokens() *RefreshTokens {
	return &RefreshTokens{
		byHash:  map[string]auth.RefreshToken{},
		rotated: map[string]time.Time{},
		revoked: map[string]time.Time{},
	}
}

// Create implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Create(_ context.Context, t auth.RefreshToken) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byHash[t.Hash]; ok {
		return auth.ErrTokenExists()
	}
	r.byHash[t.Hash] = t
	return nil
}

// Get implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Get(_ context.Context, hash string) (auth.RefreshToken, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.byHash[hash]
	if !ok {
		return auth.RefreshToken{}, auth.ErrTokenNotFound()
	}
	return t, nil
}

// ClaimRotation implements ports.RefreshTokenRepository. Like the MongoDB
// store it does not require the record to exist: the claim is about the hash.
func (r *RefreshTokens) ClaimRotation(_ context.Context, hash string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.rotated[hash]; ok {
		return auth.ErrRotationClaimed()
	}
	r.rotated[hash] = at
	return nil
}

// RotatedAt implements ports.RefreshTokenRepository.
func (r *RefreshTokens) RotatedAt(_ context.Context, hash string) (time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.rotated[hash]
	if !ok {
		return time.Time{}, auth.ErrRotationNotFound()
	}
	return at, nil
}

// RevokeFamily implements ports.RefreshTokenRepository. The records stay, so
// a revoked token that comes back is still recognised as reuse.
func (r *RefreshTokens) RevokeFamily(_ context.Context, familyID string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.revoked[familyID]; !ok {
		r.revoked[familyID] = at
	}
	return nil
}

// FamilyRevoked implements ports.RefreshTokenRepository.
func (r *RefreshTokens) FamilyRevoked(_ context.Context, familyID string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.revoked[familyID]
	return ok, nil
}

// DeleteByAccount implements ports.RefreshTokenRepository.
func (r *RefreshTokens) DeleteByAccount(_ context.Context, accountID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for hash, t := range r.byHash {
		if t.AccountID == accountID {
			delete(r.byHash, hash)
			delete(r.rotated, hash)
		}
	}
	return nil
}

// SigningKeys is an in-memory ports.SigningKeyRepository. Only the winning
// candidate is ever stored, so the active key is the only one.
type SigningKeys struct {
	mu     sync.Mutex
	active *auth.SigningKey
}

// NewSigningKeys returns an empty signing-key store.
func NewSigningKeys() *SigningKeys { return &SigningKeys{} }

// EnsureActive implements ports.SigningKeyRepository.
func (r *SigningKeys) EnsureActive(_ context.Context, candidate auth.SigningKey) (auth.SigningKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		k := cloneKey(candidate)
		r.active = &k
	}
	return cloneKey(*r.active), nil
}

// List implements ports.SigningKeyRepository.
func (r *SigningKeys) List(context.Context) ([]auth.SigningKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		return []auth.SigningKey{}, nil
	}
	return []auth.SigningKey{cloneKey(*r.active)}, nil
}

// cloneKey copies the PEM bytes so neither the caller nor the store can
// change the other's key.
func cloneKey(k auth.SigningKey) auth.SigningKey {
	k.PrivateKeyPEM = slices.Clone(k.PrivateKeyPEM)
	return k
}

// Health is an in-memory ports.Pinger; memory always answers.
type Health struct{}

// Ping implements ports.Pinger.
func (Health) Ping(context.Context) error { return nil }

// GetMany implements ports.AccountRepository.
func (r *Accounts) GetMany(_ context.Context, ids []string) ([]user.Account, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []user.Account{}
	seen := map[string]bool{}
	for _, id := range ids {
		if a, ok := r.byID[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, a)
		}
	}
	return out, nil
}
