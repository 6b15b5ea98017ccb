// libFuzzer target for every snapshot decoder (pickle, JSON, zstd, gzip) and the analysis
// that runs on whatever they accept: the advice, file health (in the summary), private pools and labels. Build: cmake -DMEMLENS_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
#include "advice/FixRanking.h"
#include "analysis/AllocationCategories.h"
#include "analysis/DeviceIndex.h"
#include "analysis/PoolUsage.h"
#include "analysis/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "model/LoadError.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        auto snapshot = memlens::loadSnapshotFromMemory(
            std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.pickle");
        for (int device : snapshot->devices()) {
            memlens::DeviceIndex index(*snapshot, device);
            const memlens::AllocationCategories categories(*snapshot, index);
            memlens::summarizeDevice(*snapshot, index, 5, &categories);
            memlens::advise(*snapshot, index, categories, {}); // the GUI runs it on every load
            memlens::privatePools(*snapshot, index);
            for (uint32_t id = 0; id < index.allocationCount() && id < 64; ++id)
                index.labelsOf(id);
            if (index.eventCount() > 0)
                index.blocksAt(static_cast<uint32_t>(index.eventCount() / 2));
            index.segmentsAt(memlens::kBeforeTrace);
        }
    } catch (const memlens::LoadError &) {
    }
    return 0;
}
