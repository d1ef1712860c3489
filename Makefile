# ragd — every target calls a script in scripts/ (or one go command).
# `make` alone prints this list.

SHELL := /bin/bash
ARGS ?=

.DEFAULT_GOAL := help
.PHONY: help run cluster test fuzz bench flows bench-growth eval build deps fmt vet

help: ## show this help
	@echo "usage: make <target>"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'

run: ## install deps, start Redis + Weaviate (./data), run `ragd serve --worker $(ARGS)`
	scripts/run.sh $(ARGS)

cluster: ## three Weaviate nodes, Redis primary + replica + 3 sentinels (REDIS=cluster: a 3+3 Redis Cluster), 2 `ragd serve` + 3 `ragd worker` (data ./data/cluster, ports 9xxx)
	REDIS=$(REDIS) scripts/cluster.sh

test: ## install deps, start throwaway Redis + Weaviate on test ports, go vet + go test -race
	scripts/test.sh

fuzz: ## run every Go fuzz target in turn for FUZZTIME each (default 10m); no services needed
	scripts/fuzz.sh

bench: ## same services as test, then the benchmarks
	scripts/bench.sh

flows: ## same services as test, then the Go files and packages one REST search and one REST ingest run (docs/ARCHITECTURE.md)
	scripts/flows.sh

bench-growth: ## same services as test, then ingest in steps to 1M chunks (RAGD_GROWTH_STEPS) and print rates, latency, memory, disk
	scripts/bench-growth.sh

.PHONY: soak
soak: ## same services as test, a built ragd under SOAK_DURATION (10m) of mixed load at SOAK_CONCURRENCY (8); fails on errors or growth
	scripts/soak.sh

eval: ## same services as test, build five corpora from this machine, print recall@k and MRR per corpus, split and configuration, and the defaults rule
	scripts/eval.sh $(ARGS)

build: ## build bin/ragd
	go build -o bin/ragd ./cmd/ragd

deps: ## install Redis, WordNet, tesseract + poppler (OCR), Weaviate and the model files only
	scripts/deps.sh

fmt: ## go fmt ./...
	go fmt ./...

vet: ## go vet ./...
	go vet ./...
