# The two commands of the README: `make run` (the main job) and `make test` (the whole suite).
# Both install what is missing and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test gpu-pack clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@scripts/run.sh $(BUILD_DIR)

# ctest, then its outcome against tests/expected-skips.txt: a skip not listed there fails.
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --output-junit ctest-junit.xml
	@scripts/check_expected_skips.py $(BUILD_DIR)/ctest-junit.xml tests/expected-skips.txt

# Stripped binaries for the GPU host under dist/ (see docs/working.md).
gpu-pack: build
	@scripts/gpu-pack.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) dist
