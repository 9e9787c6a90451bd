package errs

// The codes clients see, each written once here so that call sites, the
// defaults of each Kind and the OpenAPI document (checked by a test) agree.
// The code strings are part of the API: renaming a constant is free,
// changing its value is a breaking change.
const (
	// Generic: the request itself, the HTTP layer and the service's state.
	CodeMalformedJSON        = "malformed_json"
	CodeMalformedQuery       = "malformed_query"
	CodeMalformedForm        = "malformed_form" // the web app's HTML forms
	CodeValidationFailed     = "validation_failed"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeRouteNotFound        = "route_not_found"
	CodeNotFound             = "not_found"
	CodeConflict             = "conflict"
	CodeForbidden            = "forbidden"
	CodeUnauthorized         = "unauthorized"
	CodeCORSRejected         = "cors_rejected"
	CodeCSRFRejected         = "csrf_rejected"
	CodeRateLimitExceeded    = "rate_limit_exceeded"
	CodeUnavailable          = "unavailable"
	CodeShuttingDown         = "shutting_down"
	CodeRequestTimeout       = "request_timeout" // a request past its own deadline
	CodeInternalError        = "internal_error"

	// Auth: sign-in, tokens and their keys, external identities, mailed tokens.
	CodeInvalidCredentials       = "invalid_credentials"
	CodeInvalidCurrentPassword   = "invalid_current_password"
	CodeTooManyAttempts          = "too_many_attempts"
	CodeSignupDisabled           = "signup_disabled"
	CodeInvalidToken             = "invalid_token"
	CodeTokenExpired             = "token_expired"
	CodeInvalidRefreshToken      = "invalid_refresh_token"
	CodeRefreshTokenReused       = "refresh_token_reused"
	CodeRefreshTokenExists       = "refresh_token_exists"
	CodeRefreshTokenNotFound     = "refresh_token_not_found"
	CodeRotationNotFound         = "rotation_not_found"
	CodeSigningKeyNotFound       = "signing_key_not_found"
	CodeIssuerNotAuthoritative   = "issuer_not_authoritative"
	CodeExternalIdentityExists   = "external_identity_exists"
	CodeExternalIdentityMismatch = "external_identity_mismatch"
	CodeExternalIdentityNotFound = "external_identity_not_found"
	CodeResetTokenInvalid        = "reset_token_invalid"
	CodeVerificationTokenInvalid = "verification_token_invalid"
	CodeMailTokenExists          = "mail_token_exists"
	CodeMailTokenNotFound        = "mail_token_not_found"
	CodeMailNotConfigured        = "mail_not_configured"
	CodeMailUnavailable          = "mail_unavailable"

	// Users: accounts, staff, students and invitations.
	CodeAccountExists         = "account_exists"
	CodeAccountNotFound       = "account_not_found"
	CodeAccountNotProvisioned = "account_not_provisioned"
	CodeAccountSuspended      = "account_suspended"
	CodeUserNotFound          = "user_not_found"
	CodeCannotChangeOwnRole   = "cannot_change_own_role"
	CodeCannotSuspendSelf     = "cannot_suspend_self"
	CodeInviteNotFound        = "invite_not_found"
	CodeInviteUsed            = "invite_used"
	CodeStudentNotFound       = "student_not_found"
	CodeClassNotFound         = "class_not_found"
	CodeStudentNumberExists   = "student_number_exists"
	// Roster sync and the year-end rollover.
	CodeStudentInactive  = "student_inactive"
	CodeExternalIDExists = "external_id_exists"
	CodeRosterConflicts  = "roster_conflicts"
	CodeRolloverDone     = "rollover_done"
	CodeRolloverNotFound = "rollover_not_found"

	// Catalog: books, their content and reading.
	CodeBookExists              = "book_exists"
	CodeBookNotFound            = "book_not_found"
	CodeISBNExists              = "isbn_exists"
	CodeChapterNotFound         = "chapter_not_found"
	CodePremiumRequired         = "premium_required"
	CodeProgressNotFound        = "progress_not_found"
	CodeSessionExists           = "session_exists"
	CodeReadingListItemNotFound = "reading_list_item_not_found"

	// Library: schools, copies, loans, their renewals and students' departures.
	CodeSchoolExists        = "school_exists"
	CodeSchoolNotFound      = "school_not_found"
	CodeCopyNotFound        = "copy_not_found"
	CodeCopyUnavailable     = "copy_unavailable"
	CodeCopyClaimed         = "copy_claimed"
	CodeCopyLimitReached    = "copy_limit_reached"
	CodeCopyCodeExists      = "copy_code_exists"
	CodeClaimNotFound       = "claim_not_found"
	CodeLoanNotFound        = "loan_not_found"
	CodeLoanNotActive       = "loan_not_active"
	CodeActiveLoans         = "active_loans"
	CodeRenewalExists       = "renewal_exists"
	CodeRenewalLimitReached = "renewal_limit_reached"
	CodeRenewalPastTermEnd  = "renewal_past_term_end"
	// A student chose to keep no history at a school that leaves no choice.
	CodeHistoryChoiceOff = "history_choice_off"
	// A student's want-to-read list is at its cap.
	CodeWantToReadFull = "want_to_read_full"
	// A loan still out (or lost) cannot be marked as a book read.
	CodeLoanNotReturned = "loan_not_returned"
	// A loan that no longer names its student (they keep no history, or
	// it was anonymised) cannot be marked as read.
	CodeHistoryNotKept = "history_not_kept"
	// Reviews: an unknown one, one of a title the student never borrowed,
	// and one the student changed under a librarian's decision.
	CodeReviewNotFound = "review_not_found"
	CodeNotBorrowed    = "not_borrowed"
	CodeReviewChanged  = "review_changed"
	// Covers: an image the service cannot read, one past its caps, none.
	CodeCoverUnreadable   = "cover_unreadable"
	CodeCoverTooLarge     = "cover_too_large"
	CodeCoverNotFound     = "cover_not_found"
	CodeSweepClaimed      = "sweep_claimed"
	CodeDepartureDecided  = "departure_decided"
	CodeDepartureNotFound = "departure_not_found"

	// Loan rules: a book's loan category and the patron's limits.
	CodeNotForLoan       = "not_for_loan"
	CodeLoanLimitReached = "loan_limit_reached"
	// A check-out of a book outside the student's reading range, when the
	// school blocks them.
	CodeOutsideReadingRange = "outside_reading_range"

	// Holds: reservations of a title, the copies put aside for them.
	CodeHoldExists       = "hold_exists"
	CodeHoldNotFound     = "hold_not_found"
	CodeHoldNotActive    = "hold_not_active"
	CodeHoldPending      = "hold_pending"
	CodeHoldEnded        = "hold_ended"   // store: the hold's outcome is recorded already
	CodeHoldTrapped      = "hold_trapped" // store: the hold or the copy has a trap already
	CodeTrapNotFound     = "trap_not_found"
	CodeCopyAvailable    = "copy_available"
	CodeCopyOnHold       = "copy_on_hold"
	CodeAlreadyBorrowing = "already_borrowing"
	// Library: lost, damaged and claimed copies, their charges and the
	// borrowing block.
	CodeCopyNotLendable  = "copy_not_lendable"
	CodeCopyNotOut       = "copy_not_out"
	CodeChargeExists     = "charge_exists"
	CodeLoanEnded        = "loan_ended"
	CodeChargeNotFound   = "charge_not_found"
	CodeChargeSettled    = "charge_settled"
	CodeBorrowingBlocked = "borrowing_blocked"
	// Library: stocktakes.
	CodeStocktakeNotFound = "stocktake_not_found"
	CodeStocktakeClosed   = "stocktake_closed"
	CodeStocktakeOpen     = "stocktake_open"
	CodeScanExists        = "scan_exists"
	CodeScanNotFound      = "scan_not_found"
	// Library: self-check kiosks.
	CodeKioskNotFound     = "kiosk_not_found"
	CodeKioskLoginTaken   = "kiosk_login_taken"
	CodeKioskLimitReached = "kiosk_limit_reached"
	// Library: scans the desk made offline. A settled one is not settled
	// again; a return scanned before the copy's current loan began does not
	// end that loan.
	CodeOfflineOpSettled = "offline_op_settled"
	CodeLoanAfterScan    = "loan_after_scan"
	// Store: no scan of the school has the id.
	CodeOfflineOpNotFound = "offline_op_not_found"
	// Library: holdings imports run as background jobs.
	CodeImportJobNotFound = "import_job_not_found"
	CodeImportRunning     = "import_running" // the school has an import job running
	CodeImportsBusy       = "imports_busy"   // as many imports as the process takes are being read

	// Cataloguing by ISBN: the school's SRU catalogue server.
	CodeCatalogLookupOff         = "catalog_lookup_off"         // the school set no server
	CodeCatalogRecordNotFound    = "catalog_record_not_found"   // the server has no record of the ISBN
	CodeCatalogSourceUnavailable = "catalog_source_unavailable" // down, refused, or an answer that is no SRU answer
	CodeCatalogSourceTimeout     = "catalog_source_timeout"     // no whole answer within the lookup's time

	// Migration: the record store of the import/export commands.
	CodeRecordExists      = "record_exists"
	CodeInvalidRecord     = "invalid_record"
	CodeInvalidBatchSize  = "invalid_batch_size"
	CodeUnknownRecordKind = "unknown_record_kind"
)
