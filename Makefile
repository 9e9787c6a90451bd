# Reading library service. `make` alone lists the targets.
.DEFAULT_GOAL := help
GO      ?= go
BIN     ?= bin/libraryd
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: help run build test axe test-edge images test-containers lint bench fmt vet fuzz

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: ## Run the service on the embedded store (./data/library.db) with demo data at http://localhost:8080
	LIBRARY_COOKIE_SECURE=$${LIBRARY_COOKIE_SECURE:-false} $(GO) run ./cmd/libraryd

build: ## Build the server binary into bin/libraryd
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(BIN) ./cmd/libraryd

test: axe ## Run every test: all packages with the race detector (end to end on the embedded SQLite store), the end-to-end suite again on MongoDB (in-process FerretDB; its adapter's races are covered by its own package run), and the real oauth2-proxy end to end. Redis tests need LIBRARY_TEST_REDIS_URL. The container suites are `make test-containers`
	@status=0; e2e=$$(mktemp); out=$$(mktemp); \
	INPARTS_WEIGHTS=test/inparts.race.weights test/inparts.sh 2 ./test $(GO) test $(RACE) $(TESTVET) -count=1 -timeout 30m -skip '^TestContainer' >$$e2e 2>&1 & race_e2e=$$!; \
	( LIBRARY_TEST_STORE=mongo $(GO) test $(TESTVET) -count=1 -timeout 30m -skip '^TestContainer' $${LIBRARY_TEST_MONGO_RUN:+-run "$$LIBRARY_TEST_MONGO_RUN"} ./test/; m=$$?; \
	  cd test/edgeproxy && $(GO) test -count=1 -timeout 15m ./...; exit $$((m | $$?)) ) >$$out 2>&1 & other=$$!; \
	echo "make test: the race run of every package, the end-to-end one on its own beside the others, with the MongoDB end-to-end run and then the oauth2-proxy one beside them"; \
	$(GO) test $(RACE) $(TESTVET) -count=1 -timeout 30m -skip '^TestContainer' $$($(GO) list ./... | grep -vx '$(E2E_PKG)') || status=1; \
	wait $$race_e2e || status=1; \
	echo "make test: the race run of the end-to-end suite:"; cat $$e2e; rm -f $$e2e; \
	wait $$other || status=1; \
	echo "make test: the MongoDB end-to-end run, then the oauth2-proxy one:"; cat $$out; rm -f $$out; \
	exit $$status

axe: ## Install axe-core, at the version test/axe/package-lock.json pins, into ~/.cache/libraryd for the browser tests' accessibility check (test/axe.sh; needs npm: without it the check is skipped, or fails with LIBRARY_TEST_BROWSER=required)
	@test/axe.sh >/dev/null

# The end-to-end suite is the longest test run by far, and go test ./...
# starts it last of its packages, when the others are done and a core is
# idle: it runs as go tests of its own, started first, beside the race
# run of the other packages. Its tests run one at a time and wait on
# their service, browser and store, so one process of it left a core
# half idle for the last five minutes of make test, when the other runs
# were done: it goes as two processes (test/inparts.sh, dealt out by the
# times of test/inparts.race.weights).
E2E_PKG = github.com/readinglibrary/service/test

# LIBRARY_TEST_MONGO_RUN, when set, is the -run pattern of the MongoDB run.
# .ci/run sets it to the tests the MongoDB container suite, run just
# before, had to skip (they hook into the in-process service): every other
# test has then already passed on MongoDB, against the service image.

# The race runs and the MongoDB run go at once: each end-to-end run keeps
# a core less than busy (its tests wait on their service, browser and
# store), and they share nothing but Redis, where every test uses keys of
# its own. Each run's output is printed whole, after the others'.

# The race detector watches the Go heap. Some libraries are built without
# its instrumentation, which was most of the race run's CPU: SQLite
# (modernc.org/sqlite/lib, C translated to Go) and the C runtime it is
# translated onto (modernc.org/libc and its allocator modernc.org/memory),
# whose data lives in C memory outside that heap, so instrumenting (and
# pointer-checking) their reads only cost time; and Argon2id
# (golang.org/x/crypto/argon2), a function of its arguments alone, 0.22 s a
# password under the detector against 0.09 s without. Leaving the C
# runtime out took the end-to-end race run from 275 to 212 CPU-s. Every
# package of ours, and its calls into them, stays instrumented.
# TESTVET, when set, is go test's -vet flag for the module's packages.
# go test vets each package it tests (a subset of go vet's checks, and the
# dependencies' facts for them) before running it; .ci/run has just run
# make lint's go vet ./..., every check on every package, so it passes
# -vet=off and the test runs skip the second pass (1,286 vet processes and
# 135 CPU-s in the 32 minutes of a CI run that were measured).
TESTVET ?=

RACE = -race -gcflags=modernc.org/sqlite/lib=-race=false -gcflags=modernc.org/libc/...=-race=false \
	-gcflags=modernc.org/memory=-race=false -gcflags=golang.org/x/crypto/argon2=-race=false

test-edge: ## Only the end-to-end test behind a real oauth2-proxy v7.8.1 (its own module in test/edgeproxy)
	cd test/edgeproxy && $(GO) test -count=1 -timeout 15m ./...

images: ## Build the container images from local bases, no registry needed (deploy/images.sh), and the docker compose plugin (needs Docker, and root for the first debootstrap)
	deploy/images.sh

test-containers: ## Run the container suites as CI does (needs a Docker engine and `make images`; fails without them): the MongoDB adapter's contract suite on the FerretDB image, the end-to-end suite against the service image on its embedded store and on the FerretDB image, and two replicas behind oauth2-proxy with Redis. LIBRARY_TEST_MONGO=container (+ LIBRARY_TEST_MONGO_IMAGE) or LIBRARY_TEST_MONGODB_URI swap in a real MongoDB
	$(CT) $(GO) test $(TESTVET) -count=1 -timeout 20m $${LIBRARY_TEST_ADAPTER_RUN:+-run "$$LIBRARY_TEST_ADAPTER_RUN"} ./adapters/mongorepo/... & m=$$!; \
	  $(CT) test/inparts.sh 3 ./test $(GO) test $(TESTVET) -count=1 -timeout 30m; c=$$?; \
	  wait $$m; m=$$?; exit $$((m | c))
	$(CT) LIBRARY_TEST_STORE=mongo test/inparts.sh 3 ./test $(GO) test $(TESTVET) -count=1 -timeout 30m -skip '^TestContainer'

# One test process alone leaves the cores idle while its containers start,
# so each end-to-end run goes as three processes at once (test/inparts.sh
# deals the tests out by the time each took, test/inparts.weights), the
# adapter suite beside the first. The standalone container tests
# (TestContainer...) run once.
#
# LIBRARY_TEST_ADAPTER_RUN, when set, is the -run pattern of the adapter
# suite. .ci/run sets it to the test make test cannot run, the one skipped
# under the race detector: CI's make test runs every other test of the
# suite under the race detector, on the same FerretDB image
# (LIBRARY_TEST_MONGO=ferretdb). Against a real MongoDB
# (LIBRARY_TEST_MONGO=container, LIBRARY_TEST_MONGODB_URI) the whole suite
# is the run that proves the adapter there: leave it unset.
test-containers: CT = LIBRARY_TEST_DOCKER=$${LIBRARY_TEST_DOCKER:-required} LIBRARY_TEST_MONGO=$${LIBRARY_TEST_MONGO:-ferretdb} LIBRARY_TEST_TARGET=container

lint: fmt vet ## gofmt check, go vet, and the package-layer rules
	$(GO) test -count=1 -run TestArchitecture ./test/

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

fuzz: ## Run every Go fuzz target for FUZZTIME each (default 60s; .ci/run uses 10s). A failing input lands in the package's testdata/fuzz/ as a regression case
	GO=$(GO) test/fuzz.sh $(or $(FUZZTIME),60s)

bench: ## Run the Go benchmarks (figures go to bench/)
	$(GO) test -run '^$$' -bench . -benchmem ./...
