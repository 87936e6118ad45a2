# perflab — see README.md. `make build` renders the bundled site into site/;
# `make test` installs what the tests need and runs every test.
GO ?= go
# go-nvml (collect/telemetry) compiles NVML's header, which marks many
# functions deprecated; keep the build quiet.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: build test deps vet unit bench seeds docs serve-soak gpu-check gpu-check-bin fuzz chaos

build:
	$(GO) run ./cmd/perflab build

# deps installs the tests' outside helpers (headless Chromium, llama.cpp's
# llama-server, reference tokenizers). A part that cannot be installed is
# reported loudly and the tests that need it skip with the reason.
deps:
	bash .ci/deps.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l cmd collect render templates)" || { gofmt -l cmd collect render templates; echo "gofmt needed"; exit 1; }

unit:
	$(GO) test -count=1 -timeout 30m ./...

test: deps vet unit

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# seeds re-imports the bundled seed reports' results from their sources
# (results/<campaign>/src/seed.md) with perflab import.
seeds:
	GO=$(GO) bash .ci/import-seeds.sh

# docs renders docs/ (the reference pages) as a site into docs-site/.
docs:
	$(GO) run ./cmd/perflab build --content docs --results .cache/docs-no-results --out docs-site

# serve-soak serves the bundled site for 10 minutes under a stream of
# edits (half-written files completed later) and reloading clients, and
# logs heap, RSS and goroutines over time (render/serve's TestServeUnderLoad;
# `make test` runs it for a few seconds).
serve-soak:
	PERFLAB_SERVE_SOAK=$${PERFLAB_SERVE_SOAK:-10m} $(GO) test -count=1 -timeout 30m -run '^TestServeUnderLoad$$' -v ./render/serve

# gpu-check runs the checks that need NVIDIA GPUs (--gpu-info, a mock
# campaign sampled with NVML, the client benchmark at 1,024 and 4,096
# streams) and writes .cache/gpu-check/summary.txt; exit 2 on a machine
# without an NVIDIA GPU (see README, Testing).
gpu-check:
	GO=$(GO) bash .ci/gpu-check.sh

# gpu-check-bin builds gpu-check's binaries into GPU_CHECK_BIN (default
# .cache/gpu-check-bin) for a GPU node without Go: copy the checkout there
# with that directory and run GPU_CHECK_BIN=<dir> bash .ci/gpu-check.sh.
GPU_CHECK_BIN ?= .cache/gpu-check-bin
gpu-check-bin:
	mkdir -p $(GPU_CHECK_BIN)
	CGO_ENABLED=1 $(GO) build -ldflags='-s -w' -o $(GPU_CHECK_BIN)/perflab ./cmd/perflab
	CGO_ENABLED=1 $(GO) build -ldflags='-s -w' -o $(GPU_CHECK_BIN)/gpucheck ./collect/telemetry/gpucheck
	CGO_ENABLED=1 $(GO) test -c -ldflags='-s -w' -o $(GPU_CHECK_BIN)/bench.test ./collect/bench

# fuzz runs every fuzz target for FUZZTIME each, one after the other
# (`make test` runs their seed corpora and the inputs saved under each
# package's testdata/fuzz/). FUZZTARGETS picks some: FUZZTARGETS="./collect/ingest:FuzzParseText".
FUZZTIME ?= 1m
FUZZTARGETS ?= \
	./collect/ingest:FuzzParseText ./collect/ingest:FuzzParseVLLMJSON ./collect/ingest:FuzzParseGuideLLM \
	./collect/schema/campaignfile:FuzzParse ./render:FuzzFrontMatter ./render:FuzzMarkdown \
	./collect/migrate:FuzzMigrate ./collect/dataset/tokenizer:FuzzParse \
	./collect/dataset:FuzzShareGPT ./collect/dataset:FuzzCustom ./collect/dataset:FuzzTimedTrace \
	./collect/mock:FuzzServeHTTP ./render/serve:FuzzHandler \
	./collect/sse:FuzzReader ./collect/openai:FuzzParseChunk ./collect/check:FuzzCheck
fuzz:
	@set -e; for t in $(FUZZTARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# chaos runs the collect chaos drill (cmd/perflab/chaos_test.go) for
# CHAOSTIME and prints its figures; `make test` runs one short campaign of
# it. CHAOSSEED=N repeats a drill.
CHAOSTIME ?= 10m
chaos:
	PERFLAB_CHAOS=$(CHAOSTIME) PERFLAB_CHAOS_SEED=$(CHAOSSEED) $(GO) test ./cmd/perflab -run '^TestChaosCollect$$' -count=1 -v -timeout 0
