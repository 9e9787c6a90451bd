// Package policies embeds the Ladon policy files of this directory into the
// binary, so a deployed service needs no files beside it. LIBRARY_POLICIES_DIR
// replaces them with a directory of the operator's own.
//
// The layer rules of test/architecture_test.go set no limit on its imports.
package policies

import "embed"

// Files holds every *.json policy file of this directory.
//
//go:embed *.json
var Files embed.FS
