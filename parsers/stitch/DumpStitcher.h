#pragma once
// One run from the dumps one rank wrote while it trained (a snapshot every N steps, each with the
// newest entries of torch's ring buffer). Dumps go in by step; each adds the entries the run
// so far does not have:
// - Where two dumps overlap, the entries they share (same action, address, size, stream and
//   time, in the same order) are counted once.
// - Where they do not, entries were lost between them: a gap from the last entry before to the
//   first after. The allocator state after the gap is the next dump's own, read back from its
//   final state through its trace (DeviceIndex); the stitched trace carries the change with
//   entries at the gap's end (frees and segment releases of what is gone, allocs and segment
//   reservations of what is new), so the run reads as one consistent trace and every figure
//   the summary computes holds across the gap.
//   A gap across which none of the live allocations survives (same address and size) is warned
//   of: one run keeps its parameters across any gap, so the later dump is likely another run's.
//   When the next dump by step then falls wholly before the dump that opened the gap but after
//   the run before it, that dump was another run's (a later one left among these): it is taken
//   out again, said so, and the run goes on without it.
// - The final segments are those of the dump that ends the run.
// Only one dump is read at a time, during add().
#include "model/Snapshot.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct StitchedDump {
    std::string file;
    std::optional<int64_t> step;
    uint64_t entries = 0;          // trace entries in the dump, all devices
    uint64_t newEntries = 0;       // of which the run had not had
    std::optional<int64_t> firstTimeUs, lastTimeUs;
};

struct StitchGap {
    std::string afterFile, beforeFile;
    int device = 0;
    int64_t fromUs = 0, toUs = 0;
    uint64_t bridgingEntries = 0; // entries the stitch added to carry the allocator state across
};

struct StitchedRun {
    std::shared_ptr<const Snapshot> snapshot;
    std::vector<StitchedDump> dumps;
    std::vector<StitchGap> gaps;
    std::vector<std::string> warnings; // one sentence each, naming the files
};

class DumpStitcher {
public:
    DumpStitcher();
    ~DumpStitcher();
    DumpStitcher(const DumpStitcher &) = delete;
    DumpStitcher &operator=(const DumpStitcher &) = delete;

    // Throws std::invalid_argument for what cannot be stitched (profiler traces, memory
    // timelines), naming the file.
    void add(const Snapshot &dump, const std::string &file, std::optional<int64_t> step);
    // The stitcher is empty afterwards.
    StitchedRun finish();

private:
    void rollBackAnotherRun(const Snapshot &dump, const std::string &file);
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace memlens
