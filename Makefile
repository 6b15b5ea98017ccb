# The two commands of the README. Both install what is missing (Debian 12, as root or via sudo),
# configure and build; `run` opens the GUI on the bundled example, `test` runs every test.
BUILD     ?= build
BUILDTYPE ?= RelWithDebInfo
JOBS      ?= $(shell nproc)
EXAMPLE   := resources/examples/gpt2_fp32_adamw.pickle.zst
PACKAGES  := g++ cmake ninja-build pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev libzstd-dev \
             nlohmann-json3-dev zlib1g-dev fonts-dejavu-core xvfb xauth ccache python3 zstd \
             desktop-file-utils appstream file dpkg-dev help2man bash-completion libsimdjson-dev mold
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build run test package bench screenshots fuzz sanitize clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing: $$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/memlens $(EXAMPLE)

test: build
	cd $(BUILD) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j $(JOBS)

# The .deb with a stripped binary, its debug symbols in a .debug file beside it (found by gdb
# through the build id, see the README), checked with lintian and by running the packaged binary.
package: build
	@dpkg-query -W -f='$${Status}\n' lintian 2>/dev/null | grep -q '^install ok installed' || \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian >/dev/null
	cd $(BUILD) && cpack -G DEB
	deb=$$(ls -t $(BUILD)/memlens_*_*.deb | head -1); \
	objcopy --only-keep-debug --compress-debug-sections $(BUILD)/bin/memlens $${deb%.deb}.debug && \
	tests/packaging/check_deb.sh $$deb $(EXAMPLE) $${deb%.deb}.debug

# Benchmarks: a ~1 GB / 12 M-entry snapshot generated from the corpus (see tests/bench/README.md).
bench: build
	tests/bench/run_benchmarks.sh $(BUILD)

# The README's pictures drawn again from the corpus by the window's code (resources/screenshots).
screenshots: build
	tests/tools/readme_images.sh $(BUILD)

# libFuzzer on the decoders (clang): `make fuzz FUZZ_SECONDS=1800`.
FUZZ_SECONDS ?= 600
fuzz: deps
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang >/dev/null
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DMEMLENS_FUZZ=ON
	cmake --build build-fuzz --target fuzz_snapshot fuzz_session fuzz_cache fuzz_rank_summary fuzz_mcp fuzz_parquet
	tests/fuzz/run_fuzzer.sh build-fuzz $(FUZZ_SECONDS)

# Everything (the core, the GUI and the CLI its tests run, the MCP server) under AddressSanitizer
# + UndefinedBehaviorSanitizer; leaks inside Qt's and fontconfig's own caches are not ours.
sanitize: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMEMLENS_SANITIZE=ON
	cmake --build build-asan
	cd build-asan && QT_QPA_PLATFORM=offscreen LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp \
	  ctest --output-on-failure

clean:
	rm -rf $(BUILD) build-fuzz build-asan
