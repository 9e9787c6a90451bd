// Package roster reads a school's students from what its other systems
// export, and plans what a roster changes: student drafts and their rules,
// students CSV files, OneRoster 1.1 sets (CSV files or a zip), roster
// syncs matched by external id, email or student number, and the rollover
// between school years.
//
// Every reader takes outside files: it streams them in bounded memory,
// reports each problem with its file and line, and is tested on files
// other systems wrote (testdata/README.md) and fuzzed.
//
// It may import core/library, core/user, core/errs and the standard
// library, and nothing else.
package roster
