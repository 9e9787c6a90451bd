// Package httpedge is what every front door of the service shares: the
// middleware chain (request id, access log and metrics, panic recovery,
// security headers and the request deadline, CORS, cookie or bearer
// authentication with rate limits), the route table type with its guard
// (CSRF rule, Ladon policy, body type) and the one error writer.
//
// A front door (the JSON API in httpapi, the librarian's pages in webapp)
// is a list of Routes with thin handlers; cmd hands all of them to one
// Edge, which serves them through the same chain. A new front door adds
// routes and nothing else.
//
// It may import ports, the core packages and outside libraries, never
// another adapter or cmd. It is the one adapter that other adapters may
// import (test/architecture_test.go).
package httpedge
