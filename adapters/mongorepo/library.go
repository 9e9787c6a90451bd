package mongorepo

import (
	"github.com/readinglibrary/service/ports"
)

// The school library's stores share one database and these collections:
//
//   - library_books, keyed by the book id, unique on {school_id, isbn_key}
//     (isbnKey: the ISBN, or "none:" and the id, since FerretDB 1.24 has no
//     partial indexes), with the folded word prefixes of title and author
//     in search_terms for search;
//   - copies, keyed by the copy id, unique on {school_id, code};
//   - loans, keyed by the loan id; returned_at is null until the return;
//   - copy_claims, keyed by copy id + "#" + loan id, unique on copy_id:
//     the insert that takes the copy id is the one claim of the copy (a
//     unique-key insert has exactly one winner on FerretDB 1.24, where a
//     conditional update does not). The _id names the loan too so that
//     Release can delete by _id alone: FerretDB 1.24 deletes by reading the
//     matching documents and then deleting their _ids, so a delete filtered
//     on {_id: copy, loan_id} could remove a newer loan's claim that was
//     inserted in between under the same _id;
//   - renewals, keyed by loan id + "#" + number, likewise;
//   - student_numbers, keyed by school id + "#" + the lowercased number,
//     likewise;
//   - invites, keyed by the token hash, and invite_redemptions, keyed the
//     same, whose insert is the one redemption.
//
// Every method is a fixed number of commands (one, except CreateBook
// refused by a duplicate key, which looks the ISBN up to name the cause,
// and the lists, which count as well).

var (
	_ ports.HoldingsRepository   = (*Holdings)(nil)
	_ ports.LoanRepository       = (*Loans)(nil)
	_ ports.ActiveLoanRepository = (*ActiveLoans)(nil)
	_ ports.StudentRepository    = (*Students)(nil)
	_ ports.InviteRepository     = (*Invites)(nil)
)
