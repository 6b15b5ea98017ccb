#include "stitch/DumpStitcher.h"

#include "index/DeviceIndex.h"
#include "model/LoadError.h"
#include "model/EventColumns.h"
#include "stitch/AllocatorImage.h"
#include "stitch/IdRemap.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

namespace memlens {

// The run's last entries on a device came from this dump, so its final state is the run's.
// Outside the anonymous namespace: DumpStitcher::State holds it.
struct DeviceEnd {
    std::string file;
    AllocatorImage image;
    std::vector<Segment> segments; // in the run's ids; firstBlock into `blocks`
    std::vector<Block> blocks;
    std::vector<uint32_t> implausible; // into `segments`
};

namespace {

bool sameEntry(const Snapshot &run, const EventTable &a, size_t i, const Snapshot &dump, const EventTable &n, size_t j)
{
    return a.action[i] == n.action[j] && a.addr[i] == n.addr[j] && a.size[i] == n.size[j] && a.timeUs[i] == n.timeUs[j] &&
           run.streamValue(a.stream[i]) == dump.streamValue(n.stream[j]);
}

// How many of the dump's first entries the run already ends with; nullopt when they share none.
std::optional<size_t> sharedEntries(const Snapshot &run, const EventTable &a, const Snapshot &dump, const EventTable &n)
{
    if (a.count() == 0)
        return 0;
    const int64_t first = n.timeUs[0];
    for (size_t q = static_cast<size_t>(std::lower_bound(a.timeUs.begin(), a.timeUs.end(), first) - a.timeUs.begin());
         q < a.count() && a.timeUs[q] == first; ++q) {
        size_t k = 0;
        while (q + k < a.count() && k < n.count() && sameEntry(run, a, q + k, dump, n, k))
            ++k;
        if (q + k == a.count() || k == n.count())
            return k;
    }
    return std::nullopt;
}

template <typename V>
void copySparse(SparseColumn<V> &to, const SparseColumn<V> &from, size_t first, size_t base, auto &&value)
{
    for (auto it = sparseFrom(from, static_cast<uint32_t>(first)); it != from.end(); ++it)
        to.emplace_back(static_cast<uint32_t>(base + it->first - first), value(it->second));
}

// Appends the dump's entries from `first` on.
void appendEntries(EventTable &to, const EventTable &from, size_t first, IdRemap &remap)
{
    const size_t base = to.count();
    // The dumps' ids become the run's, each kind by its own remap (the values' types say which);
    // the columns are EventColumns' list, so none is forgotten.
    forEachDenseColumn([&](auto column) {
        auto &out = to.*column;
        const auto &in = from.*column;
        for (size_t i = first; i < in.size(); ++i)
            out.push_back(remap.map(in[i]));
    });
    forEachSparseColumn([&](auto column, std::string_view) {
        copySparse(to.*column, from.*column, first, base, [&](auto id) { return remap.map(id); });
    });
}

DeviceEnd endOf(const Snapshot &dump, const std::string &file, int device, IdRemap &remap)
{
    DeviceEnd end{file, finalImage(dump, device, remap), {}, {}, {}};
    for (uint32_t i = 0; i < dump.segments.size(); ++i) {
        Segment seg = dump.segments[i];
        if (seg.device != device)
            continue;
        if (std::binary_search(dump.implausibleSegments.begin(), dump.implausibleSegments.end(), SegmentId(i)))
            end.implausible.push_back(static_cast<uint32_t>(end.segments.size()));
        seg.stack = remap.stack(seg.stack);
        remap.pool(dump.poolIndex(seg.pool)); // the run names the segment's mempool too
        const uint32_t firstBlock = static_cast<uint32_t>(end.blocks.size());
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            Block block = dump.blocks[b];
            block.stack = remap.stack(block.stack);
            end.blocks.push_back(block);
        }
        seg.firstBlock = firstBlock;
        end.segments.push_back(seg);
    }
    return end;
}

// Bytes of `before`'s live blocks that `after` still has at the same address and size. One run
// keeps its parameters and optimizer state across any gap (empty_cache releases segments, not
// allocations); a dump of another run (a restart) shares none of them.
uint64_t carriedBytes(const AllocatorImage &before, const AllocatorImage &after)
{
    std::set<std::pair<uint64_t, uint64_t>> kept;
    for (const ImageBlock &b : after.blocks)
        kept.emplace(b.addr, b.size);
    uint64_t carried = 0;
    for (const ImageBlock &b : before.blocks)
        carried += kept.contains({b.addr, b.size}) ? b.size : 0;
    return carried;
}

uint64_t liveBytes(const AllocatorImage &image)
{
    uint64_t bytes = 0;
    for (const ImageBlock &b : image.blocks)
        bytes += b.size;
    return bytes;
}

} // namespace

// The run as it stood before the last dump went in, kept while that dump opened a gap: when the
// next dump (by step) falls wholly before it but after the run it joined, the last dump was
// another run's, and the stitch goes back to this.
struct StitchCheckpoint {
    std::vector<size_t> traceCounts;
    std::map<int, DeviceEnd> ends;
    size_t gaps = 0, warnings = 0, dumps = 0, phaseMarks = 0;
    std::string file; // the dump that went in after it
    // The marks that dump added to the run's set, taken out again on a rollback (the set grows
    // with the run: copied per dump, a long stitch copied it over and over).
    std::vector<std::tuple<int, StringId, bool, int64_t>> addedMarks;
};

struct DumpStitcher::State {
    std::unique_ptr<Snapshot> run = std::make_unique<Snapshot>();
    StitchedRun result;
    std::set<std::tuple<int, StringId, bool, int64_t>> marks;
    std::map<int, DeviceEnd> ends;
    bool empty = true;
    std::optional<StitchCheckpoint> beforeLast;
};

namespace {

void truncate(EventTable &t, size_t n)
{
    forEachDenseColumn([&](auto column) { (t.*column).resize(n); });
    forEachSparseColumn([&](auto column, std::string_view) { std::erase_if(t.*column, [&](const auto &e) { return e.first >= n; }); });
}

} // namespace

DumpStitcher::DumpStitcher() : state_(std::make_unique<State>()) {}
DumpStitcher::~DumpStitcher() = default;

void DumpStitcher::add(const Snapshot &dump, const std::string &file, std::optional<int64_t> step)
{
    State &st = *state_;
    Snapshot &run = *st.run;
    // What the file is, not how it was asked for: a dump that cannot be placed is left out
    // (stitchRank), and a folder with no other says so as a file it cannot read (exit 1, not 2).
    if (dump.categories || (dump.facts.format != FileFormat::Pickle && dump.facts.format != FileFormat::Json))
        throw LoadError(file, LoadError::kNoOffset, "only snapshots can be stitched, not profiler traces or memory timelines");
    if (!dump.facts.hasTimes)
        throw LoadError(file, LoadError::kNoOffset, "its entries have no times, so its place among the dumps is unknown");
    rollBackAnotherRun(dump, file);
    StitchCheckpoint checkpoint{{}, st.ends, st.result.gaps.size(), st.result.warnings.size(), st.result.dumps.size(), run.phaseMarks.size(),
                                file, {}};
    for (const EventTable &t : run.traces)
        checkpoint.traceCounts.push_back(t.count());
    IdRemap remap(dump, run);
    if (st.empty) {
        run.facts = dump.facts;
        st.empty = false;
    }
    run.facts.hasFrames |= dump.facts.hasFrames;
    run.facts.hasCompileContext |= dump.facts.hasCompileContext;
    run.facts.hasUserMetadata |= dump.facts.hasUserMetadata;
    run.facts.hasPhases |= dump.facts.hasPhases;
    run.facts.hasPoolIds |= dump.facts.hasPoolIds;
    run.facts.hasFxFrames |= dump.facts.hasFxFrames;
    if (!dump.allocatorSettings.empty())
        run.allocatorSettings = dump.allocatorSettings;

    StitchedDump info{file, step, 0, 0, std::nullopt, std::nullopt};
    for (int device = 0; device < static_cast<int>(dump.traces.size()); ++device) {
        const EventTable &n = dump.traces[device];
        if (n.count() == 0)
            continue;
        info.entries += n.count();
        info.firstTimeUs = std::min(info.firstTimeUs.value_or(INT64_MAX), n.timeUs[0]);
        info.lastTimeUs = std::max(info.lastTimeUs.value_or(INT64_MIN), n.timeUs[n.count() - 1]);
        if (run.traces.size() <= static_cast<size_t>(device))
            run.traces.resize(static_cast<size_t>(device) + 1);
        EventTable &a = run.traces[device];
        size_t first = 0;
        if (const auto shared = sharedEntries(run, a, dump, n)) {
            first = *shared;
        } else {
            const int64_t last = a.timeUs[a.count() - 1];
            while (first < n.count() && n.timeUs[first] <= last)
                ++first;
            if (first > 0)
                st.result.warnings.push_back(file + " overlaps " + st.ends[device].file + " in time on " + run.deviceName(device) +
                                             " but shares no entries with it: its " + std::to_string(first) + " older entries are left out");
            if (first < n.count()) {
                const DeviceIndex index(dump, device);
                StitchGap gap{st.ends[device].file, file, device, last, n.timeUs[first], 0};
                const AllocatorImage after = imageBefore(index, EventId(static_cast<uint32_t>(first)), remap);
                const AllocatorImage &before = st.ends[device].image;
                if (liveBytes(before) > 0 && liveBytes(after) > 0 && carriedBytes(before, after) == 0)
                    st.result.warnings.push_back(file + " keeps none of the memory " + st.ends[device].file + " left live on " +
                                                 run.deviceName(device) + " across the " + std::to_string((gap.toUs - gap.fromUs) / 1000000) +
                                                 " s between them (no allocation of the same address and size): a dump of another run?");
                gap.bridgingEntries = appendBridge(a, before, after, gap.toUs, remap);
                st.result.gaps.push_back(gap);
            }
        }
        if (first < n.count()) {
            info.newEntries += n.count() - first;
            appendEntries(a, n, first, remap);
            st.ends[device] = endOf(dump, file, device, remap);
        }
    }
    // Devices without entries in any dump so far keep the latest dump's segments.
    for (const Segment &seg : dump.segments) {
        if (run.traces.size() <= static_cast<size_t>(seg.device) || run.traces[seg.device].count() == 0)
            st.ends[seg.device] = endOf(dump, file, seg.device, remap);
    }
    for (const PhaseMark &m : dump.phaseMarks) {
        PhaseMark mark = m;
        mark.name = remap.string(m.name);
        if (st.marks.emplace(mark.device, mark.name, mark.start, mark.timeUs).second) {
            run.phaseMarks.push_back(mark);
            checkpoint.addedMarks.emplace_back(mark.device, mark.name, mark.start, mark.timeUs);
        }
    }
    st.result.dumps.push_back(std::move(info));
    if (st.result.gaps.size() > checkpoint.gaps)
        st.beforeLast = std::move(checkpoint);
    else
        st.beforeLast.reset();
}

// A dump whose entries all come before the run's end, on a device where the last dump opened a
// gap, yet after the run as it stood before that dump: the last dump was another run's (a later
// one, left among this rank's dumps). It comes out, said so; this dump then continues the run.
void DumpStitcher::rollBackAnotherRun(const Snapshot &dump, const std::string &file)
{
    State &st = *state_;
    if (!st.beforeLast)
        return;
    Snapshot &run = *st.run;
    const StitchCheckpoint &before = *st.beforeLast;
    bool continuesBefore = false, precedesLast = true;
    for (int device = 0; device < static_cast<int>(dump.traces.size()); ++device) {
        const EventTable &n = dump.traces[device];
        if (n.count() == 0 || run.traces.size() <= static_cast<size_t>(device) || run.traces[device].count() == 0)
            continue;
        const EventTable &a = run.traces[device];
        precedesLast = precedesLast && n.timeUs[n.count() - 1] < a.timeUs[a.count() - 1];
        const size_t kept = device < static_cast<int>(before.traceCounts.size()) ? before.traceCounts[device] : 0;
        continuesBefore = continuesBefore || (kept > 0 && n.timeUs[n.count() - 1] > a.timeUs[kept - 1]);
    }
    if (!precedesLast || !continuesBefore)
        return;
    for (size_t device = 0; device < run.traces.size(); ++device)
        truncate(run.traces[device], device < before.traceCounts.size() ? before.traceCounts[device] : 0);
    run.phaseMarks.resize(before.phaseMarks);
    st.ends = before.ends;
    for (const auto &mark : before.addedMarks)
        st.marks.erase(mark);
    st.result.gaps.resize(before.gaps);
    st.result.warnings.resize(before.warnings);
    st.result.dumps.resize(before.dumps);
    st.result.warnings.push_back(before.file + " was left out: its entries come after those of " + file +
                                 ", a later step's dump, which continues the run without it: a dump of another run");
    st.beforeLast.reset();
}

StitchedRun DumpStitcher::finish()
{
    State &st = *state_;
    Snapshot &run = *st.run;
    for (const auto &[device, end] : st.ends) {
        const auto segmentBase = static_cast<uint32_t>(run.segments.size());
        const auto blockBase = static_cast<uint32_t>(run.blocks.size());
        for (Segment seg : end.segments) {
            seg.firstBlock += blockBase;
            run.segments.push_back(seg);
        }
        run.blocks.insert(run.blocks.end(), end.blocks.begin(), end.blocks.end());
        for (uint32_t i : end.implausible)
            run.implausibleSegments.push_back(SegmentId(segmentBase + i));
    }
    std::stable_sort(run.phaseMarks.begin(), run.phaseMarks.end(), [](const PhaseMark &a, const PhaseMark &b) { return a.timeUs < b.timeUs; });
    for (const StitchGap &g : st.result.gaps)
        run.gaps.push_back({g.device, g.fromUs, g.toUs});
    std::stable_sort(run.gaps.begin(), run.gaps.end(), [](const TraceGap &a, const TraceGap &b) { return std::tie(a.device, a.fromUs) < std::tie(b.device, b.fromUs); });
    for (const StitchedDump &d : st.result.dumps) {
        if (d.step && d.lastTimeUs)
            run.dumpEnds.push_back({*d.lastTimeUs, *d.step});
    }
    std::stable_sort(run.dumpEnds.begin(), run.dumpEnds.end(), [](const DumpEnd &a, const DumpEnd &b) { return a.timeUs < b.timeUs; });
    StitchedRun result = std::move(st.result);
    result.snapshot = std::move(st.run);
    state_ = std::make_unique<State>();
    return result;
}

} // namespace memlens
