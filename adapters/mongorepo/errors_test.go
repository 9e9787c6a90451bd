package mongorepo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/readinglibrary/service/core/errs"
)

func TestMapErr(t *testing.T) {
	const driverText = "driver-detail-xyz"
	notFound := func() error { return errs.E(errs.NotFound, "thing_not_found", "No thing.") }
	conflict := func() error { return errs.E(errs.Conflict, "thing_exists", "Thing exists.") }
	dup := mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 " + driverText}}}

	tests := []struct {
		name     string
		err      error
		kind     errs.Kind
		code     string
		keepsErr bool
	}{
		{"NoDocuments", mongo.ErrNoDocuments, errs.NotFound, "thing_not_found", false},
		{"DuplicateKey", dup, errs.Conflict, "thing_exists", false},
		{"WrappedDuplicateKey", fmt.Errorf("insert: %w", dup), errs.Conflict, "thing_exists", false},
		{"NetworkError", mongo.CommandError{Message: driverText, Labels: []string{"NetworkError"}}, errs.Unavailable, "unavailable", true},
		{"ServerSelection", topology.ServerSelectionError{Wrapped: errors.New(driverText)}, errs.Unavailable, "unavailable", true},
		{"Deadline", fmt.Errorf("%s: %w", driverText, context.DeadlineExceeded), errs.Unavailable, "unavailable", true},
		{"Canceled", fmt.Errorf("%s: %w", driverText, context.Canceled), errs.Unavailable, "unavailable", true},
		{"ShutdownInProgress", mongo.CommandError{Code: 91, Message: driverText}, errs.Unavailable, "unavailable", true},
		{"ClientDisconnected", mongo.ErrClientDisconnected, errs.Unavailable, "unavailable", true},
		// FerretDB on SQLite, a query its maxTimeMS stopped (the message
		// FerretDB 1.24 sends), and another internal error of its.
		{"FerretDBInterrupted", mongo.CommandError{Code: 1, Message: "[msg_find.go:344 handler.handleMaxTimeMSError] [collection.go:94 sqlite.(*collection).Query] interrupted (9)"},
			errs.Unavailable, "unavailable", true},
		{"FerretDBOtherInternal", mongo.CommandError{Code: 1, Message: "[collection.go:94 sqlite.(*collection).Query] disk I/O error (6410)"}, errs.Internal, "internal_error", true},
		{"Other", mongo.CommandError{Code: 2, Message: driverText}, errs.Internal, "internal_error", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapErr(tt.err, "do things", notFound, conflict)
			e, ok := errs.As(err)
			if !ok {
				t.Fatalf("mapErr(%v) = %T, want *errs.Error", tt.err, err)
			}
			if e.Kind != tt.kind || e.ClientCode() != tt.code {
				t.Fatalf("mapErr(%v) = kind %q code %q, want %q %q", tt.err, e.Kind, e.ClientCode(), tt.kind, tt.code)
			}
			if strings.Contains(e.Message, driverText) || strings.Contains(e.Message, "E11000") {
				t.Fatalf("Message %q carries driver text", e.Message)
			}
			if tt.keepsErr && !errors.Is(err, tt.err) && e.Err == nil {
				t.Fatalf("cause lost: Err = %v, want %v", e.Err, tt.err)
			}
		})
	}

	t.Run("NoHandlers", func(t *testing.T) {
		// Without a port error for the case, a missing document or a
		// duplicate is a surprise: Internal.
		for _, in := range []error{mongo.ErrNoDocuments, dup} {
			if got := errs.KindOf(mapErr(in, "do things", nil, nil)); got != errs.Internal {
				t.Fatalf("mapErr(%v, nil handlers) kind = %q, want %q", in, got, errs.Internal)
			}
		}
	})
	if mapErr(nil, "x", notFound, conflict) != nil {
		t.Fatal("mapErr(nil) != nil")
	}
}
