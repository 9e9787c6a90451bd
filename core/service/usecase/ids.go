package usecase

import (
	"slices"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
)

// Every record id is a UUID. A value that is not one cannot name a
// record, so a use case refuses it before any lookup: as not found where it
// names the record asked for, as an invalid field where it is input.

// newUUID returns a new random record id.
func NewUUID() string { return uuid.NewString() }

// NewOrderedUUID returns a new record id that sorts after every id this
// process made before it (a version 7 UUID: the time, then a counter
// within the millisecond). Records listed by time with the id breaking
// ties then keep the order they were made in.
func NewOrderedUUID() string { return uuid.Must(uuid.NewV7()).String() }

// isUUID reports whether s could be a record id.
func IsUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}

// requireUUIDs checks that each named value is a UUID.
// Errors: Invalid with details.fields naming each one that is not.
func RequireUUIDs(values map[string]string) error {
	fields := errs.FieldErrors{}
	for name, v := range values {
		if !IsUUID(v) {
			fields.Add(name, "must be a UUID")
		}
	}
	return fields.Err()
}

// pluck returns field of each of xs, in order: typically the ids of the
// records one batch read asks for.
func Pluck[T any](xs []T, field func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = field(x)
	}
	return out
}

// Unique returns the distinct values of in, sorted: the ids a batch read
// asks for once each.
func Unique(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
