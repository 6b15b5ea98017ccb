#pragma once
// Snapshots with known content, written as CPython would pickle them.
#include "PickleWriter.h"

#include <algorithm>
#include <string>
#include <vector>

struct SynthFrame {
    std::string name, file;
    int line = 0;
};

struct SynthEntry {
    std::string action;
    uint64_t addr = 0;
    uint64_t size = 0;
    int64_t timeUs = 0;
    uint64_t stream = 0;
    int stackId = -1; // index into SynthSnapshot::stacks, -1: no frames key
};

struct SynthBlock {
    uint64_t size = 0;
    uint64_t requested = 0;
    std::string state = "inactive";
    int stackId = -1;
};

struct SynthSegment {
    int device = 0;
    uint64_t address = 0;
    uint64_t stream = 0;
    std::vector<SynthBlock> blocks;
    bool expandable = false;
    bool large = true;
};

struct SynthSnapshot {
    std::vector<SynthSegment> segments;
    std::vector<std::vector<SynthEntry>> traces;
    std::vector<std::vector<SynthFrame>> stacks;
    std::vector<std::tuple<std::string, std::string, int64_t>> phaseMarks; // record_function marks: name, stage, time
    double gcThreshold = 0.5;
    std::string allocConf = "expandable_segments:False";

    std::string pickle(int protocol = 4) const
    {
        PickleWriter w(protocol);
        std::vector<int> stackMemo(stacks.size(), -1); // frame lists shared through the memo
        auto frames = [&](int id) {
            if (id < 0 || stacks[id].empty()) {
                w.list();
                return;
            }
            if (stackMemo[id] >= 0) {
                w.get(static_cast<uint32_t>(stackMemo[id]));
                return;
            }
            w.list();
            stackMemo[id] = static_cast<int>(w.lastMemo());
            w.mark();
            for (const SynthFrame &f : stacks[id]) {
                w.dict().mark().str("name").str(f.name).str("filename").str(f.file).str("line").integer(f.line).setitems();
            }
            w.appends();
        };
        w.dict().mark();
        w.str("segments").list();
        if (!segments.empty()) {
            w.mark();
            for (const SynthSegment &s : segments) {
                // As torch's snapshot() sums them: allocated_size counts blocks in use, active_size
                // (and requested_size) those awaiting their free on another stream too.
                uint64_t total = 0, allocated = 0, active = 0, requested = 0;
                for (const SynthBlock &b : s.blocks) {
                    total += b.size;
                    allocated += b.state == "active_allocated" ? b.size : 0;
                    if (b.state != "inactive") {
                        active += b.size;
                        requested += b.requested;
                    }
                }
                w.dict().mark();
                w.str("device").integer(s.device).str("address").integer(static_cast<int64_t>(s.address));
                w.str("total_size").integer(static_cast<int64_t>(total)).str("allocated_size").integer(static_cast<int64_t>(allocated));
                w.str("active_size").integer(static_cast<int64_t>(active)).str("requested_size").integer(static_cast<int64_t>(requested));
                w.str("stream").integer(static_cast<int64_t>(s.stream)).str("segment_type").str(s.large ? "large" : "small");
                w.str("segment_pool_id").integer(0).integer(0).tuple2().str("is_expandable").boolean(s.expandable);
                w.str("frames").list().str("blocks").list();
                if (!s.blocks.empty()) {
                    w.mark();
                    uint64_t addr = s.address;
                    for (const SynthBlock &b : s.blocks) {
                        w.dict().mark().str("address").integer(static_cast<int64_t>(addr)).str("size").integer(static_cast<int64_t>(b.size));
                        w.str("requested_size").integer(static_cast<int64_t>(b.requested)).str("state").str(b.state).str("frames");
                        frames(b.stackId);
                        w.setitems();
                        addr += b.size;
                    }
                    w.appends();
                }
                w.setitems();
            }
            w.appends();
        }
        w.str("device_traces").list();
        if (!traces.empty()) {
            w.mark();
            for (const auto &trace : traces) {
                w.list();
                // As CPython batches a list's items: MARK, up to 1000 items, APPENDS; one
                // item left over alone, then APPEND.
                for (size_t i = 0; i < trace.size(); ++i) {
                    const size_t batch = i / 1000 * 1000, batchEnd = std::min(trace.size(), batch + 1000);
                    if (i == batch && batchEnd - batch > 1)
                        w.mark();
                    const SynthEntry &e = trace[i];
                    w.dict().mark().str("action").str(e.action);
                    w.str(e.action == "oom" ? "device_free" : "addr").integer(static_cast<int64_t>(e.addr));
                    w.str("size").integer(static_cast<int64_t>(e.size)).str("stream").integer(static_cast<int64_t>(e.stream));
                    w.str("time_us").integer(e.timeUs).str("compile_context").str("N/A").str("user_metadata").str("");
                    if (e.stackId >= 0) {
                        w.str("frames");
                        frames(e.stackId);
                    }
                    w.setitems();
                    if (i + 1 == batchEnd) {
                        if (batchEnd - batch > 1)
                            w.appends();
                        else
                            w.append();
                    }
                }
            }
            w.appends();
        }
        w.str("allocator_settings").dict().mark().str("PYTORCH_CUDA_ALLOC_CONF").str(allocConf);
        w.str("garbage_collection_threshold").real(gcThreshold).str("max_split_size").integer(-1).setitems();
        w.str("external_annotations").list();
        if (!phaseMarks.empty()) {
            w.mark();
            for (const auto &[name, stage, time] : phaseMarks)
                w.dict().mark().str("stage").str(stage).str("name").str(name).str("device").integer(0).str("time_us").integer(time).setitems();
            w.appends();
        }
        w.setitems();
        return w.finish();
    }
};
