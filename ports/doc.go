// Package ports declares the interfaces between the core and the adapters:
// the repositories the core drives and the security services it relies on.
// Each method documents the error kinds and codes it returns; the contract
// suites in ports/porttest check those lines against every adapter.
//
// Within the module it may import only core packages and other ports packages
// (the layer rules of test/architecture_test.go).
package ports
