# Reading library service. `make` alone lists the targets.
.DEFAULT_GOAL := help
GO      ?= go
BIN     ?= bin/libraryd
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: help run build test test-edge images test-containers lint bench fmt vet

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: ## Run the service on the embedded store (./data/library.db) with demo data at http://localhost:8080
	LIBRARY_COOKIE_SECURE=$${LIBRARY_COOKIE_SECURE:-false} $(GO) run ./cmd/libraryd

build: ## Build the server binary into bin/libraryd
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(BIN) ./cmd/libraryd

test: ## Run every test: all packages with the race detector (end to end on the embedded SQLite store), the end-to-end suite again on MongoDB (in-process FerretDB; its adapter's races are covered by its own package run), and the real oauth2-proxy end to end. Redis tests need LIBRARY_TEST_REDIS_URL. The container suites are `make test-containers`
	$(GO) test -race -count=1 -timeout 20m -skip '^TestContainer' ./...
	LIBRARY_TEST_STORE=mongo $(GO) test -count=1 -timeout 20m -skip '^TestContainer' ./test/
	cd test/edgeproxy && $(GO) test -count=1 -timeout 15m ./...

test-edge: ## Only the end-to-end test behind a real oauth2-proxy v7.8.1 (its own module in test/edgeproxy)
	cd test/edgeproxy && $(GO) test -count=1 -timeout 15m ./...

images: ## Build the container images from local bases, no registry needed (deploy/images.sh), and the docker compose plugin (needs Docker, and root for the first debootstrap)
	deploy/images.sh

test-containers: ## Run the container suites (TestContainer*) against the images of `make images` (needs a Docker engine)
	$(GO) test -count=1 -timeout 30m -run '^TestContainer' ./test/

lint: fmt vet ## gofmt check, go vet, and the package-layer rules
	$(GO) test -count=1 -run TestArchitecture ./test/

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

bench: ## Run the Go benchmarks (figures go to bench/)
	$(GO) test -run '^$$' -bench . -benchmem ./...
