// Package httpapi is the JSON API front door: the route table (router.go),
// which names each route's handler and the permission its Ladon policy
// grants, the handlers, strict JSON decoding and openapi.json.
//
// A handler decodes the request, calls one use case of core/service and
// encodes the answer; everything around it (authentication, rate limits,
// CSRF, the policy check, error bodies, logs and metrics) is the shared
// edge's, adapters/httpedge, which serves these routes together with the
// web app's pages.
//
// From the table to the code in three steps: the route's name and
// handler are on one line of table(); its action and resource are the
// permission policies/*.json grant; the handler's call on h.deps is its
// use case.
//
// It may import ports, the core packages, adapters/httpedge and outside
// libraries; no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package httpapi
