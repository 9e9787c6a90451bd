package library

import "github.com/readinglibrary/service/core/errs"

// Errors of the library repositories that have no constructor elsewhere.
// Both repository adapters return them, so the codes are spelled once.

// ErrISBNExists is returned when the school's catalog already has the ISBN.
func ErrISBNExists() error {
	return errs.E(errs.Conflict, errs.CodeISBNExists, "The school's catalog already has a book with this ISBN.")
}

// ErrCopyClaimed is returned when a claim for the copy exists already: the
// copy is lent by another loan.
func ErrCopyClaimed() error {
	return errs.E(errs.Conflict, errs.CodeCopyClaimed, "The copy is already claimed by a loan.")
}

// ErrClaimNotFound is returned for a copy that no loan claims.
func ErrClaimNotFound() error {
	return errs.E(errs.NotFound, errs.CodeClaimNotFound, "No loan claims this copy.")
}

// ErrRenewalExists is returned when the renewal number of the loan is
// already recorded.
func ErrRenewalExists() error {
	return errs.E(errs.Conflict, errs.CodeRenewalExists, "This renewal of the loan is already recorded.")
}

// ErrStudentNumberExists is returned when the school already uses the
// student number.
func ErrStudentNumberExists() error {
	return errs.E(errs.Conflict, errs.CodeStudentNumberExists, "A student of this school already has this student number.")
}

// ErrExternalIDExists is returned when another student of the school
// already has the stable roster id.
func ErrExternalIDExists() error {
	return errs.E(errs.Conflict, errs.CodeExternalIDExists, "A student of this school already has this external id.")
}

// ErrRolloverDone is returned when the school's year-end rollover for the
// school year has already run.
func ErrRolloverDone() error {
	return errs.E(errs.Conflict, errs.CodeRolloverDone, "The year-end rollover for this school year has already run.")
}

// ErrStudentInactive is returned when a student taken off the roll (by a
// roster sync or the year-end rollover) would borrow or place a hold.
func ErrStudentInactive() error {
	return errs.E(errs.Conflict, errs.CodeStudentInactive, "This student is inactive (no longer on the school's roll) and cannot borrow or place holds.")
}

// ErrInviteNotFound is returned for an unknown invitation.
func ErrInviteNotFound() error {
	return errs.E(errs.NotFound, errs.CodeInviteNotFound, "The invitation does not exist.")
}

// ErrInviteUsed is returned when an invitation has been redeemed already.
func ErrInviteUsed() error {
	return errs.E(errs.Conflict, errs.CodeInviteUsed, "The invitation has already been used.")
}

// ErrChargeExists is returned when a charge with the same id (the same loan
// and kind) is stored already: the charge was made before.
func ErrChargeExists() error {
	return errs.E(errs.Conflict, errs.CodeChargeExists, "The charge exists already.")
}

// ErrChargeSettled is returned when a charge has a settlement already: the
// first settlement stands.
func ErrChargeSettled() error {
	return errs.E(errs.Conflict, errs.CodeChargeSettled, "The charge has been settled already.")
}

// ErrChargeNotFound is returned for an unknown charge, or one of another
// school.
func ErrChargeNotFound() error {
	return errs.E(errs.NotFound, errs.CodeChargeNotFound, "The charge does not exist.")
}

// ErrLoanEnded is returned when an ending (lost, claims returned) of the
// loan is recorded already: the first ending stands.
func ErrLoanEnded() error {
	return errs.E(errs.Conflict, errs.CodeLoanEnded, "The loan has an ending already.")
}

// ErrEndingNotFound is returned for a loan without a recorded ending.
func ErrEndingNotFound() error {
	return errs.E(errs.NotFound, errs.CodeLoanNotFound, "The loan has no recorded ending.")
}

// ErrCopyCodeExists is returned when a copy's code is taken in the school
// already (an imported barcode another copy carries).
func ErrCopyCodeExists() error {
	return errs.E(errs.Conflict, errs.CodeCopyCodeExists, "A copy of the school already carries this code; nothing was imported.")
}
