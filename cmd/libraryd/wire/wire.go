// Package wire picks from a store's repositories (ports.Repositories, the
// bag each store adapter hands out) the ones each use case is built with.
// libraryd's wiring uses it, and so do tests that build use cases on one
// store; no use case sees the bag itself.
package wire

import (
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/ports"
)

// Library is what the library's use cases take from r.
func Library(r ports.Repositories) service.LibraryStores {
	return service.LibraryStores{
		Schools: r.Schools, Accounts: r.Accounts, RefreshTokens: r.RefreshTokens, Students: r.Students, Invites: r.Invites,
		Holdings: r.Holdings, HoldingsImports: r.HoldingsImports, Loans: r.Loans, ActiveLoans: r.ActiveLoans,
		Departures: r.Departures, Notices: r.Notices, Holds: r.Holds, Charges: r.Charges, Homerooms: r.Homerooms,
		Reports: r.Reports, Stocktakes: r.Stocktakes, ImportJobs: r.ImportJobs, WantToRead: r.WantToRead,
		Reviews: r.Reviews, Covers: r.Covers, AppLinks: r.AppLinks, AppBooks: r.Books, FinishedLoans: r.FinishedLoans, Progress: r.Progress,
		ReadingLists: r.ReadingLists, Shelf: r.Shelf, AuditLog: r.AuditLog, Kiosks: r.Kiosks, OfflineOps: r.OfflineOps,
	}
}

// Identity is what identity takes from r, with its security ports; the
// optional ones (mailer, mail cap, external issuers) the caller adds.
func Identity(r ports.Repositories, tokens ports.TokenService, hasher ports.PasswordHasher, throttle ports.LoginThrottle) identity.IdentityDeps {
	return identity.IdentityDeps{
		Accounts: r.Accounts, Schools: r.Schools, RefreshTokens: r.RefreshTokens, MailTokens: r.MailTokens,
		ExternalIdentities: r.ExternalIdentities, Tokens: tokens, Hasher: hasher, Throttle: throttle,
	}
}

// Users is what the users interface takes from r.
func Users(r ports.Repositories, authz ports.Authorizer) users.UsersDeps {
	return users.UsersDeps{
		Accounts: r.Accounts, RefreshTokens: r.RefreshTokens, ReadingLists: r.ReadingLists, Progress: r.Progress, Books: r.Books,
		Students: r.Students, Invites: r.Invites, MailTokens: r.MailTokens, ExternalIdentities: r.ExternalIdentities,
		Loans: r.Loans, ActiveLoans: r.ActiveLoans, Departures: r.Departures, Schools: r.Schools, Notices: r.Notices,
		Charges: r.Charges, Holds: r.Holds, Holdings: r.Holdings, WantToRead: r.WantToRead, Reviews: r.Reviews,
		FinishedLoans: r.FinishedLoans, AppLinks: r.AppLinks, AuditLog: r.AuditLog, Authz: authz,
	}
}

// Books is what the books interface takes from r.
func Books(r ports.Repositories, authz ports.Authorizer) reading.BooksDeps {
	return reading.BooksDeps{Books: r.Books, ReadingLists: r.ReadingLists, Progress: r.Progress, Accounts: r.Accounts, Authz: authz}
}
