//go:build race

package mongorepo_test

// raceEnabled reports whether the race detector is on: it slows the
// embedded FerretDB several times over, so timings taken under it say
// nothing about production.
const raceEnabled = true
