// libFuzzer target for FILE.summary.json, which `memlens summary DIR` and the rank overview read
// back instead of a snapshot: any text gives figures or nullopt, never a crash or a throw.
#include "ranks/RankSummary.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const memlens::RankFile file{"rank0.pickle", 0, true, std::nullopt, false};
    memlens::parseSummaryFile(std::string_view(reinterpret_cast<const char *>(data), size), file);
    return 0;
}
