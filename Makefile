# The README's two commands: `make demo` (install what is missing, build, run the main job)
# and `make check` (build with gcc, and with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer, both with warnings as errors; run every test in both).
# `make` alone builds build/ipcc. make check ends with the tests that skipped, and why
# (scripts/skip-summary): on a fresh Debian after its own install step, only those that need
# a hardware PMU.

BUILD ?= build
SAN_BUILD ?= build-san
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps demo check bench fuzz format clean

all:
	@./scripts/install-deps --check
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@./scripts/install-deps

# The main job: ipcc stat on the bundled example workload, with its regions.
demo: deps all
	./$(BUILD)/ipcc stat --regions -- ./$(BUILD)/examples/regions

check: deps
	cmake -S . -B $(BUILD) -DIPCC_DEVELOPER=ON
	cmake --build $(BUILD) -j $(JOBS)
	CC=clang cmake -S . -B $(SAN_BUILD) -DIPCC_DEVELOPER=ON -DCMAKE_BUILD_TYPE=Debug \
		-DIPCC_SANITIZE=address,undefined
	cmake --build $(SAN_BUILD) -j $(JOBS)
	@echo "== tests, sanitizer build (clang, address+undefined)"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir $(SAN_BUILD) --output-on-failure \
		--output-junit $(CURDIR)/$(SAN_BUILD)/junit.xml
	@echo "== tests, gcc build"
	ctest --test-dir $(BUILD) --output-on-failure --output-junit $(CURDIR)/$(BUILD)/junit.xml
	@echo "== skipped tests, sanitizer build then gcc build"
	@./scripts/skip-summary $(SAN_BUILD)/junit.xml $(BUILD)/junit.xml

# Benchmarks: figures and ratios measured side by side (see README, "Measured").
bench: deps all
	./$(BUILD)/ipcc calibrate
	./$(BUILD)/bench/counters
	./$(BUILD)/bench/model
	./$(BUILD)/bench/explain
	./$(BUILD)/bench/report ./$(BUILD)/ipcc
	./$(BUILD)/bench/skid_layout
	./$(BUILD)/bench/fast_strings
	./$(BUILD)/bench/front_end
	./$(BUILD)/bench/lone_miss
	./$(BUILD)/ipcc bench --blocks tests/data/bhive/sample.txt --model --format json \
		> $(BUILD)/blocks.json
	./$(BUILD)/ipcc bench --blocks tests/data/bhive/sample.txt --passes 1 --limit 40 --model
	./$(BUILD)/bench/blocks $(BUILD)/blocks.json llvm-mca-19 native
	python3 bench/heldout_blocks.py 500 > $(BUILD)/heldout.txt
	./$(BUILD)/ipcc bench --blocks $(BUILD)/heldout.txt --model --format json \
		> $(BUILD)/heldout.json
	./$(BUILD)/bench/blocks $(BUILD)/heldout.json llvm-mca-19 native
	./bench/stat_overhead.sh ./$(BUILD)/ipcc
	python3 bench/model_backend.py ./$(BUILD)/ipcc
	python3 bench/model_steady.py ./$(BUILD)/ipcc
	python3 bench/branch_patterns.py ./$(BUILD)/ipcc ./$(BUILD)/bench/branch_patterns
	python3 bench/mispredict_sites.py ./$(BUILD)/ipcc ./$(BUILD)/bench/mispredict_sites
	python3 bench/op_cache.py ./$(BUILD)/ipcc ./$(BUILD)/bench/op_cache
	python3 bench/merge_sort.py ./$(BUILD)/ipcc ./$(BUILD)/bench/merge_sort
	python3 bench/llc_time.py ./$(BUILD)/bench/llc_time
	./$(BUILD)/bench/kernel_costs
	MODEL_KERNELS_BENCH=1 sh tests/cli/model_kernels.sh ./$(BUILD)/ipcc \
		./$(BUILD)/tests/cli/model_kernels
	./bench/record_overhead.sh ./$(BUILD)/ipcc ./$(BUILD)/tests/cli/hot_loop

# The fuzzers (model parser, metric language, metric files) under ASan+UBSan, 60 s each.
fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DIPCC_SANITIZE=address,undefined \
		-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_model_parse fuzz_formula fuzz_metrics_xml
	mkdir -p build-fuzz/corpus_model build-fuzz/corpus_formula build-fuzz/corpus_xml
	./build-fuzz/fuzz_model_parse -max_total_time=60 -max_len=4096 build-fuzz/corpus_model tests/data/sim
	./build-fuzz/fuzz_formula -max_total_time=60 -max_len=4096 build-fuzz/corpus_formula tests/fuzz/formula-seeds
	./build-fuzz/fuzz_metrics_xml -max_total_time=60 -max_len=4096 build-fuzz/corpus_xml metrics

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
