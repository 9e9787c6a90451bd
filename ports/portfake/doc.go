// Package portfake holds small in-memory stand-ins for the ports that more
// than one package's tests need: a token service, a password hasher, a login
// throttle that never refuses, an outbox for mail, and a counting rate
// limiter and a recording authorizer for the HTTP edge. Each keeps to its
// port's contract in the simplest way, so that a test exercises the code
// under test rather than the technology behind the port.
//
// Only tests import it (the layer test refuses it in production code); the
// service never wires it. A fake that only one
// package's tests need stays beside those tests.
//
// Within the module it may import only core packages and other ports packages
// (the layer rules of test/architecture_test.go).
package portfake
