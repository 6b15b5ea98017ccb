// Load benchmark: decode, index and summarise a snapshot, printing the time of each stage and
// the peak RSS. Not a test: run it on a large generated file (see run_benchmarks.sh).
#include "index/AllocatorState.h"
#include "views/CallTree.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "views/TimelineLayout.h"
#include "decode/SnapshotLoader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {
double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
long peakRssMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_load FILE\n");
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto snapshot = memlens::loadSnapshot(argv[1]);
    const double decode = seconds(t0);
    const long rssAfterDecode = peakRssMiB();
    const auto t1 = std::chrono::steady_clock::now();
    memlens::DeviceIndex index(*snapshot, 0);
    const double indexing = seconds(t1);
    const auto t2 = std::chrono::steady_clock::now();
    const memlens::DeviceSummary summary = memlens::summarizeDevice(*snapshot, index, 10);
    const double summarising = seconds(t2);

    // "What is live at event e" for random e.
    std::mt19937 rng(1);
    std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(index.eventCount() - 1));
    double worstLive = 0, totalLive = 0;
    for (int i = 0; i < 200; ++i) {
        const auto t = std::chrono::steady_clock::now();
        auto live = index.liveAt(memlens::TracePoint::after(memlens::EventId(pick(rng))));
        const double s = seconds(t);
        worstLive = std::max(worstLive, s);
        totalLive += s;
    }
    // Allocator state (segments, blocks, holes) at random events.
    std::vector<double> stateTimes;
    for (int i = 0; i < 200; ++i) {
        const auto t = std::chrono::steady_clock::now();
        auto state = memlens::allocatorStateAt(*snapshot, index, memlens::TracePoint::after(memlens::EventId(pick(rng))));
        stateTimes.push_back(seconds(t) * 1e3);
    }
    std::sort(stateTimes.begin(), stateTimes.end());
    const auto t3 = std::chrono::steady_clock::now();
    memlens::TimelineLayout layout(index);
    const double layoutBuild = seconds(t3);

    const auto t4 = std::chrono::steady_clock::now();
    memlens::CallTreeOptions topDown, bottomUp;
    bottomUp.bottomUp = true;
    const auto liveAtPeak = index.liveAt(index.peak());
    memlens::CallTree treeA(*snapshot, index, liveAtPeak, topDown);
    memlens::CallTree treeB(*snapshot, index, liveAtPeak, bottomUp);
    const double trees = seconds(t4);

    std::printf("file: %s\nentries: %llu\n", argv[1], static_cast<unsigned long long>(summary.entries));
    std::printf("decode: %.2f s (peak RSS %ld MiB)\nindex: %.2f s\nsummary: %.3f s\ntotal: %.2f s\n", decode,
                rssAfterDecode, indexing, summarising, decode + indexing + summarising);
    std::printf("liveAt: mean %.2f ms, worst %.2f ms over 200 random events\n", totalLive / 200 * 1e3, worstLive * 1e3);
    std::printf("allocator state at an event: median %.1f ms, worst %.1f ms over 200 random events\n", stateTimes[100],
                stateTimes.back());
    std::printf("timeline level-of-detail index: %.2f s\n", layoutBuild);
    std::printf("call trees at the peak (top-down and bottom-up, %zu allocations): %.3f s\n", liveAtPeak.size(), trees);
    std::printf("peak RSS: %ld MiB\n", peakRssMiB());
    return 0;
}
