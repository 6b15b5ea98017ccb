// libFuzzer target for every snapshot decoder (pickle, JSON, zstd, gzip) and the analysis
// that runs on whatever they accept: the advice (with its allocator replays), file health (in the
// summary), private pools, labels, and a replay under the setting the file records (its
// PYTORCH_CUDA_ALLOC_CONF text is parsed as torch parses it).
// A pickle is also decoded with the tokenizer on a thread of its own and with its entries read
// by the stack machine, which must change nothing;
// a profiler trace is also read by the reference trace reader, which must agree.
// The summary's and replay's JSON writers run on every accepted file, named by input bytes.
// Build: cmake -DMEMLENS_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
#include "PickleDecoding.h"
#include "advice/FixRanking.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "figures/PoolUsage.h"
#include "figures/SnapshotSummary.h"
#include "cache/SnapshotCodec.h"
#include "decode/trace/ProfilerTraceDecoder.h"
#include "decode/SnapshotLoader.h"
#include "model/LoadError.h"
#include "replay/Replay.h"
#include "replay/ReplayReport.h"
#include "report/JsonText.h"
#include "report/SummaryReport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
// The decoded snapshot as bytes (the cache's encoding), or the error.
std::string decodedWith(std::string_view bytes, memlens::PickleTokenizing tokenizing,
                        memlens::PickleEntries entries = memlens::PickleEntries::Direct)
{
    const memlens::Decoded d = memlens::decodeWith(memlens::openMemorySource(bytes, "fuzz.pickle"), tokenizing, entries);
    return d.error.empty() ? memlens::encodeSnapshot(*d.snapshot) : d.error;
}

// The fuzzer's inputs are below the size from which the tokenizer gets a thread of its own, so
// that path is asked for here, and its result compared with the single-threaded one; and trace
// entries read straight from the tokens must come out as the stack machine makes them.
void checkPickleWays(std::string_view bytes)
{
    if (bytes.empty() || static_cast<unsigned char>(bytes.front()) != 0x80)
        return;
    const std::string direct = decodedWith(bytes, memlens::PickleTokenizing::OnThisThread);
    if (direct != decodedWith(bytes, memlens::PickleTokenizing::OnItsOwnThread) ||
        direct != decodedWith(bytes, memlens::PickleTokenizing::OnThisThread, memlens::PickleEntries::ThroughTheMachine))
        std::abort();
}

// A profiler trace read by both trace readers: where both accept it, the same model. (The fast
// reader checks less outside the event list, so only their results are compared, not their
// verdicts.)
void checkTraceReaders(std::string_view bytes)
{
    if (bytes.find("traceEvents") == std::string_view::npos)
        return;
    auto decode = [&](void (*decoder)(memlens::ByteReader &, memlens::Snapshot &)) -> std::string {
        try {
            memlens::OpenedSource opened = memlens::openMemorySource(bytes, "fuzz.json");
            memlens::ByteReader reader(*opened.source, opened.fileSize, {});
            memlens::Snapshot snapshot;
            decoder(reader, snapshot);
            return memlens::encodeSnapshot(snapshot);
        } catch (const memlens::DecodeError &) {
            return {};
        }
    };
    const std::string fast = decode(memlens::decodeProfilerTrace), reference = decode(memlens::decodeProfilerTraceReference);
    if (!fast.empty() && !reference.empty() && fast != reference)
        std::abort();
}
// What a JSON writer produced reads back as JSON.
void checkJson(const std::string &text)
{
    if (!nlohmann::json::accept(text))
        std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    checkPickleWays(std::string_view(reinterpret_cast<const char *>(data), size));
    checkTraceReaders(std::string_view(reinterpret_cast<const char *>(data), size));
    try {
        auto snapshot = memlens::loadSnapshotFromMemory(
            std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.pickle");
        for (int device : snapshot->devices()) {
            memlens::DeviceIndex index(*snapshot, device);
            const memlens::AllocationCategories categories(*snapshot, index);
            // The JSON writers with whatever bytes the file holds as names (frames, labels) and
            // bytes from the input as the file's name: always JSON, never an exception.
            const memlens::DeviceSummary summary = memlens::summarizeDevice(*snapshot, index, 5, &categories);
            const std::string name(reinterpret_cast<const char *>(data), std::min<size_t>(size, 24));
            checkJson(memlens::summaryJson(*snapshot, name, {memlens::DeviceReport{summary, std::nullopt, std::nullopt}}));
            memlens::advise(*snapshot, index, categories, {}); // the GUI runs it on every load
            memlens::AdviceOptions limited;
            limited.capacity = 1ull << 30; // prices every allocator setting, gc included
            memlens::advise(*snapshot, index, categories, limited);
            checkJson(memlens::jsonText(memlens::replayJson(name, memlens::replayTrace(*snapshot, index, {memlens::AllocatorConfig::recorded(*snapshot), std::nullopt, {}}))));
            memlens::privatePools(*snapshot, index);
            for (uint32_t id = 0; id < index.allocationCount() && id < 64; ++id)
                index.labelsOf(memlens::AllocationId(id));
            if (index.eventCount() > 0)
                index.blocksAt(memlens::TracePoint::afterFirst(index.eventCount() / 2));
            index.segmentsAt(memlens::TracePoint::start());
        }
    } catch (const memlens::LoadError &) {
    }
    return 0;
}
