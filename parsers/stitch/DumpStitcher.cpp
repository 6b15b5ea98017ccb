#include "stitch/DumpStitcher.h"

#include "index/DeviceIndex.h"
#include "model/LoadError.h"
#include "model/EventColumns.h"
#include "stitch/AllocatorImage.h"
#include "stitch/IdRemap.h"
#include "stitch/RunContinuation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
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
    markLongLived(end.image, dump, device);
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

// Where a dump's entries on one device join the run: from `first` on, after a gap when the
// run's entries do not reach them (`after`: the allocator state there, in the dump's ids).
struct DevicePlacement {
    int device = 0;
    size_t first = 0;
    size_t olderLeftOut = 0; // entries overlapping the run in time that it does not share
    std::optional<AllocatorImage> after;
};

StitchedDump dumpInfo(const Snapshot &dump, const std::string &file, std::optional<int64_t> step)
{
    StitchedDump info{file, step, 0, 0, std::nullopt, std::nullopt};
    for (const EventTable &n : dump.traces) {
        if (n.count() == 0)
            continue;
        info.entries += n.count();
        info.firstTimeUs = std::min(info.firstTimeUs.value_or(INT64_MAX), n.timeUs[0]);
        info.lastTimeUs = std::max(info.lastTimeUs.value_or(INT64_MIN), n.timeUs[n.count() - 1]);
    }
    return info;
}

std::string fileList(const std::vector<StitchedDump> &dumps)
{
    std::string out;
    for (const StitchedDump &d : dumps)
        out += (out.empty() ? "" : ", ") + d.file;
    return out;
}

// Steps named by the dumps' paths that go down while their times go up.
bool stepsAgainstTime(std::vector<StitchedDump> dumps)
{
    std::erase_if(dumps, [](const StitchedDump &d) { return !d.step || !d.lastTimeUs; });
    std::stable_sort(dumps.begin(), dumps.end(), [](const StitchedDump &a, const StitchedDump &b) { return *a.lastTimeUs < *b.lastTimeUs; });
    return std::adjacent_find(dumps.begin(), dumps.end(), [](const StitchedDump &a, const StitchedDump &b) { return *a.step > *b.step; }) != dumps.end();
}

} // namespace

// One run stitched from the dumps that continue one another.
struct DumpStitcher::Chain {
    std::unique_ptr<Snapshot> run = std::make_unique<Snapshot>();
    std::vector<StitchedDump> dumps;
    std::vector<StitchGap> gaps;
    std::vector<std::string> warnings;
    std::set<std::tuple<int, StringId, bool, int64_t>> marks;
    std::map<int, DeviceEnd> ends;
};

struct DumpStitcher::State {
    std::vector<Chain> chains;
    bool outOfTimeOrder = false;
};

namespace {

// Where the dump joins `chain`, device by device; nullopt when it is not this run's: it lies
// wholly before the run's end (`before` is set), or keeps none of its long-lived memory.
template <typename Chain>
std::optional<std::vector<DevicePlacement>> placeIn(const Chain &chain, const Snapshot &dump, bool &before)
{
    const Snapshot &run = *chain.run;
    std::vector<DevicePlacement> places;
    for (int device = 0; device < static_cast<int>(dump.traces.size()); ++device) {
        const EventTable &n = dump.traces[device];
        if (n.count() == 0)
            continue;
        DevicePlacement place{device, 0, 0, std::nullopt};
        const bool runHasDevice = device < static_cast<int>(run.traces.size()) && run.traces[device].count() > 0;
        if (const auto shared = runHasDevice ? sharedEntries(run, run.traces[device], dump, n) : std::optional<size_t>(0)) {
            place.first = *shared;
        } else {
            const EventTable &a = run.traces[device];
            const int64_t last = a.timeUs[a.count() - 1];
            while (place.first < n.count() && n.timeUs[place.first] <= last)
                ++place.first;
            if (place.first == n.count()) {
                before = true;
                return std::nullopt;
            }
            place.olderLeftOut = place.first;
            const DeviceIndex index(dump, device);
            place.after = imageBefore(index, EventId(static_cast<uint32_t>(place.first)));
            if (!keepsLongLivedMemory(run, chain.ends.at(device).image, dump, *place.after))
                return std::nullopt;
        }
        places.push_back(std::move(place));
    }
    return places;
}

template <typename Chain>
void appendDump(Chain &chain, const Snapshot &dump, StitchedDump info, const std::vector<DevicePlacement> &places)
{
    Snapshot &run = *chain.run;
    IdRemap remap(dump, run);
    if (chain.dumps.empty())
        run.facts = dump.facts;
    run.facts.hasFrames |= dump.facts.hasFrames;
    run.facts.hasCompileContext |= dump.facts.hasCompileContext;
    run.facts.hasUserMetadata |= dump.facts.hasUserMetadata;
    run.facts.hasPhases |= dump.facts.hasPhases;
    run.facts.hasPoolIds |= dump.facts.hasPoolIds;
    run.facts.hasFxFrames |= dump.facts.hasFxFrames;
    if (!dump.allocatorSettings.empty())
        run.allocatorSettings = dump.allocatorSettings;
    for (const DevicePlacement &place : places) {
        const EventTable &n = dump.traces[place.device];
        if (run.traces.size() <= static_cast<size_t>(place.device))
            run.traces.resize(static_cast<size_t>(place.device) + 1);
        EventTable &a = run.traces[place.device];
        DeviceEnd &end = chain.ends[place.device];
        if (place.olderLeftOut > 0)
            chain.warnings.push_back(info.file + " overlaps " + end.file + " in time on " + run.deviceName(place.device) +
                                     " but shares no entries with it: its " + std::to_string(place.olderLeftOut) + " older entries are left out");
        if (place.after) {
            StitchGap gap{end.file, info.file, place.device, a.timeUs[a.count() - 1], n.timeUs[place.first], 0};
            gap.bridgingEntries = appendBridge(a, end.image, remapped(*place.after, remap), gap.toUs, remap);
            chain.gaps.push_back(gap);
        }
        if (place.first < n.count()) {
            info.newEntries += n.count() - place.first;
            appendEntries(a, n, place.first, remap);
            end = endOf(dump, info.file, place.device, remap);
        }
    }
    // Devices without entries in any dump so far keep the latest dump's segments.
    for (const Segment &seg : dump.segments) {
        if (run.traces.size() <= static_cast<size_t>(seg.device) || run.traces[seg.device].count() == 0)
            chain.ends[seg.device] = endOf(dump, info.file, seg.device, remap);
    }
    for (const PhaseMark &m : dump.phaseMarks) {
        PhaseMark mark = m;
        mark.name = remap.string(m.name);
        if (chain.marks.emplace(mark.device, mark.name, mark.start, mark.timeUs).second)
            run.phaseMarks.push_back(mark);
    }
    chain.dumps.push_back(std::move(info));
}

} // namespace

DumpStitcher::DumpStitcher() : state_(std::make_unique<State>()) {}
DumpStitcher::~DumpStitcher() = default;

void DumpStitcher::add(const Snapshot &dump, const std::string &file, std::optional<int64_t> step)
{
    State &st = *state_;
    // What the file is, not how it was asked for: a dump that cannot be placed is left out
    // (stitchRank), and a folder with no other says so as a file it cannot read (exit 1, not 2).
    if (dump.categories || (dump.facts.format != FileFormat::Pickle && dump.facts.format != FileFormat::Json))
        throw LoadError(file, LoadError::kNoOffset, "only snapshots can be stitched, not profiler traces or memory timelines");
    if (!dump.facts.hasTimes)
        throw LoadError(file, LoadError::kNoOffset, "its entries have no times, so its place among the dumps is unknown");
    // The newest run first: a dump most often continues the one the dump before it joined.
    for (auto chain = st.chains.rbegin(); chain != st.chains.rend(); ++chain) {
        if (auto places = placeIn(*chain, dump, st.outOfTimeOrder)) {
            appendDump(*chain, dump, dumpInfo(dump, file, step), *places);
            return;
        }
    }
    bool unused = false;
    auto places = placeIn(st.chains.emplace_back(), dump, unused);
    appendDump(st.chains.back(), dump, dumpInfo(dump, file, step), *places);
}

StitchedRun DumpStitcher::finish()
{
    State &st = *state_;
    if (st.chains.empty())
        st.chains.emplace_back();
    // The rank's run: the most dumps; of two as long, the later.
    auto main = st.chains.begin();
    for (auto c = st.chains.begin(); c != st.chains.end(); ++c) {
        if (c->dumps.size() >= main->dumps.size())
            main = c;
    }
    Chain &chain = *main;
    Snapshot &run = *chain.run;
    StitchedRun result{nullptr, std::move(chain.dumps), std::move(chain.gaps), std::move(chain.warnings), {}, st.outOfTimeOrder};
    for (Chain &other : st.chains) {
        if (&other == &chain)
            continue;
        result.warnings.push_back(fileList(other.dumps) + (other.dumps.size() == 1 ? " was" : " were") +
                                  " left out: a dump of another run (no entries shared with the rank's run of " + result.dumps.front().file +
                                  " … " + result.dumps.back().file + ", and none of its long-lived memory: blocks at the same address and size, by the same frames)");
        result.leftOut.insert(result.leftOut.end(), other.dumps.begin(), other.dumps.end());
    }
    for (const auto &[device, end] : chain.ends) {
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
    for (const StitchGap &g : result.gaps)
        run.gaps.push_back({g.device, g.fromUs, g.toUs});
    std::stable_sort(run.gaps.begin(), run.gaps.end(), [](const TraceGap &a, const TraceGap &b) { return std::tie(a.device, a.fromUs) < std::tie(b.device, b.fromUs); });
    // Iterations are numbered from the dumps' steps only where those follow the entries' times.
    if (stepsAgainstTime(result.dumps))
        result.warnings.push_back("the dumps' steps (from their paths) do not follow their entries' times: iterations are not numbered from them");
    else {
        for (const StitchedDump &d : result.dumps) {
            if (d.step && d.lastTimeUs)
                run.dumpEnds.push_back({*d.lastTimeUs, *d.step});
        }
    }
    std::stable_sort(run.dumpEnds.begin(), run.dumpEnds.end(), [](const DumpEnd &a, const DumpEnd &b) { return a.timeUs < b.timeUs; });
    result.snapshot = std::move(chain.run);
    state_ = std::make_unique<State>();
    return result;
}

} // namespace memlens
