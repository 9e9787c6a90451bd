package mongorepo

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/readinglibrary/service/core/errs"
)

// mapErr turns a driver error into the *errs.Error that crosses the port.
// notFound and conflict build the port's errors for a missing document and a
// duplicate key; nil means the case cannot happen for op, and the error is
// then Internal like any other surprise. Driver text only ever goes in Err.
func mapErr(err error, op string, notFound, conflict func() error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments) && notFound != nil:
		return notFound()
	case mongo.IsDuplicateKeyError(err) && conflict != nil:
		return conflict()
	case isUnavailable(err):
		return errUnavailable(err)
	default:
		return errs.Wrap(err, "The database failed to %s.", op)
	}
}

// errUnavailable keeps the cause for the logs; clients only learn to retry.
func errUnavailable(cause error) error {
	return &errs.Error{Kind: errs.Unavailable, Code: errs.CodeUnavailable, Message: "The database is unavailable; try again shortly.", Err: cause}
}

// transientCodes are server error codes that mean "this server cannot
// serve you right now", as opposed to a problem with the request.
var transientCodes = []int{
	6,     // HostUnreachable
	7,     // HostNotFound
	89,    // NetworkTimeout
	91,    // ShutdownInProgress
	189,   // PrimarySteppedDown
	9001,  // SocketException
	10107, // NotWritablePrimary
	11600, // InterruptedAtShutdown
	11602, // InterruptedDueToReplStateChange
	13435, // NotPrimaryNoSecondaryOk
	13436, // NotPrimaryOrSecondary
}

// isUnavailable reports whether err means the database could not be reached
// or did not answer in time: the request itself may well be fine. A
// cancelled context counts too, since the caller gave up while waiting on the
// server.
func isUnavailable(err error) bool {
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, mongo.ErrClientDisconnected) {
		return true
	}
	if errors.As(err, new(topology.ServerSelectionError)) || errors.As(err, new(topology.ConnectionError)) {
		return true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range transientCodes {
			if se.HasErrorCode(c) {
				return true
			}
		}
		// FerretDB 1.24 on SQLite reports a query that its maxTimeMS
		// stopped as an InternalError ending in SQLite's "interrupted
		// (9)" (SQLITE_INTERRUPT, raised only when the query's context
		// ends) instead of MaxTimeMSExpired: the same timeout.
		if se.HasErrorCodeWithMessage(codeInternalError, sqliteInterrupted) {
			return true
		}
	}
	return false
}

// What FerretDB on SQLite answers for a query its time limit stopped.
const (
	codeInternalError = 1
	sqliteInterrupted = "interrupted (9)"
)
