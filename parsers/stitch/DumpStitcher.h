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
//   A dump after a gap continues the run only if it keeps the run's long-lived memory (see
//   RunContinuation); one whose entries all come before the run's last does not.
// - A dump that continues no run so far starts a run of its own. The run with the most dumps
//   is the rank's (of two as long, the later); the other runs' dumps are left out, said so
//   (another run's file left in the folder, whichever place its step gives it).
// - Dumps whose steps (from their paths) do not follow their entries' times are found out
//   (`outOfTimeOrder`); stitchRank then stitches them again in time order.
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
    std::vector<StitchedDump> leftOut; // dumps of other runs
    bool outOfTimeOrder = false;      // a dump came wholly before a run it followed by step
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
    struct Chain;
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace memlens
