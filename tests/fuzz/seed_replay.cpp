// The fuzz targets' harnesses in the ordinary build, run by ctest over the inputs the fuzzer once
// found (tests/data/fuzz-regressions) and a few real files: a harness that no longer compiles,
// or that aborts or crashes on an input, fails here, not at the next fuzzing session (only
// `make fuzz` built them, and fuzz_cache's had not compiled for months when it was next run).
// Each harness's LLVMFuzzerTestOneInput is renamed to NAME_one by its source's compile flags.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" {
int fuzz_snapshot_one(const uint8_t *data, size_t size);
int fuzz_session_one(const uint8_t *data, size_t size);
int fuzz_cache_one(const uint8_t *data, size_t size);
int fuzz_rank_summary_one(const uint8_t *data, size_t size);
int fuzz_parquet_one(const uint8_t *data, size_t size);
int fuzz_mcp_one(const uint8_t *data, size_t size);
}

int main(int argc, char **argv)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        if (fs::is_directory(argv[i])) {
            for (const auto &entry : fs::recursive_directory_iterator(argv[i]))
                if (entry.is_regular_file())
                    inputs.push_back(entry.path());
        } else {
            inputs.emplace_back(argv[i]);
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "usage: fuzz_seed_replay FILE|DIR...\n");
        return 2;
    }
    using Harness = int (*)(const uint8_t *, size_t);
    const std::pair<const char *, Harness> harnesses[] = {{"fuzz_snapshot", fuzz_snapshot_one}, {"fuzz_session", fuzz_session_one},
                                                          {"fuzz_cache", fuzz_cache_one},       {"fuzz_rank_summary", fuzz_rank_summary_one},
                                                          {"fuzz_parquet", fuzz_parquet_one},   {"fuzz_mcp", fuzz_mcp_one}};
    for (const fs::path &path : inputs) {
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (const auto &[name, harness] : harnesses) {
            std::fprintf(stderr, "%s %s\n", name, path.c_str()); // the last line names the input that crashed
            harness(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
        }
    }
    std::printf("%zu inputs through %zu harnesses\n", inputs.size(), std::size(harnesses));
    return 0;
}
