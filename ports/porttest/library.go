package porttest

import (
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// The library's ports each have their own suite, in the file named after
// what the port stores (holdings.go, loans.go, students.go, holds.go and
// the others); this file holds what they share. Together they check
// the documented errors, the scoping of every lookup by school (another
// school's object is NotFound), the unique keys, and the exactly-once claims
// under concurrency. newRepos must return empty repositories that no other
// subtest sees; the suites use the schools and accounts of the same
// repositories where a port reads them.

type portTest struct {
	name string
	run  func(t *testing.T, r ports.Repositories)
}

func runPortTests(t *testing.T, newRepos func(t *testing.T) ports.Repositories, tests []portTest) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

// --- helpers ---

// race runs call(0) .. call(n-1) in n goroutines released together and
// returns their errors by index.
func race(n int, call func(i int) error) []error {
	out := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			out[i] = call(i)
		}()
	}
	start.Done()
	done.Wait()
	return out
}

// wantOneWinner checks that exactly one of results is nil and every other
// is a Conflict with code, and returns the winner's index.
func wantOneWinner(t *testing.T, call string, results []error, code string) int {
	t.Helper()
	winner, wins, lost := -1, 0, 0
	for i, err := range results {
		switch {
		case err == nil:
			winner = i
			wins++
		case errs.KindOf(err) == errs.Conflict && errs.CodeOf(err) == code:
			lost++
		default:
			t.Errorf("%s #%d: unexpected error %v (kind %q, code %q)", call, i, err, errs.KindOf(err), errs.CodeOf(err))
		}
	}
	if wins != 1 || lost != len(results)-1 {
		t.Fatalf("%d racing %s: %d nil and %d %s, want 1 and %d", len(results), call, wins, lost, code, len(results)-1)
	}
	return winner
}

// sortedIDs returns ids sorted, for comparing sets.
func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	sort.Strings(out)
	return out
}
