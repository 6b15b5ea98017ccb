#include "report/SummaryReport.h"

#include "index/FrameFilter.h"
#include "model/ByteFormat.h"
#include "report/SiteJson.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <sstream>

namespace memlens {

namespace {

// Only when a private pool exists: a default pool alone is what "reserved" already says.
void writePools(std::ostringstream &out, const std::vector<PoolShare> &pools, const char *when)
{
    if (std::none_of(pools.begin(), pools.end(), [](const PoolShare &p) { return p.isPrivate(); }))
        return;
    out << "  Pools " << when << '\n';
    for (const PoolShare &p : pools) {
        out << "    " << (p.isPrivate() ? "(" + std::to_string(p.pool.first) + ", " + std::to_string(p.pool.second) + ")" : std::string("default")) << ": "
            << formatBytes(p.reserved) << " reserved in " << p.segments << (p.segments == 1 ? " segment, " : " segments, ") << formatBytes(p.allocated) << " allocated";
        if (p.isPrivate())
            out << "; " << p.madeBy;
        out << '\n';
    }
}

void writeLive(std::ostringstream &out, const Snapshot &snapshot, const std::vector<LiveBlockInfo> &blocks)
{
    for (const LiveBlockInfo &b : blocks) {
        out << "    " << formatBytes(b.size);
        for (size_t pad = formatBytes(b.size).size(); pad < 11; ++pad)
            out << ' ';
        out << siteLine(snapshot, allocationSite(snapshot, b.stack, b.autogradThread));
        for (const std::string &label : b.labels)
            out << "  [" << label << "]";
        out << '\n';
    }
}

} // namespace

namespace {

// The file's format, and for a memory-timeline export its categories.
void writeFileHeader(std::ostringstream &out, const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices)
{
    const FileFacts &f = snapshot.facts;
    out << file << ": " << kFileFormatNames.name(f.format);
    if (f.pickleProtocol)
        out << " (protocol " << f.pickleProtocol << ")";
    if (f.compression != Compression::None)
        out << ", " << kCompressionNames.name(f.compression) << "-compressed";
    out << '\n';
    if (snapshot.categories) {
        const CategorySummary c = summarizeCategories(*snapshot.categories);
        out << "\nMemory by category (" << c.points << " time points): peak " << formatBytes(c.peakTotal) << " at "
            << c.peakTimeUs << " us\n";
        for (int i = 0; i < CategoryTimeline::kCategories; ++i)
            out << "  " << CategoryTimeline::torchCategoryName(i) << ": " << formatBytes(c.atPeak[static_cast<size_t>(i)])
                << " at the peak, " << formatBytes(c.final[static_cast<size_t>(i)]) << " at the end\n";
    } else if (devices.empty()) {
        out << "No device has segments or trace entries.\n";
    }
    std::string oomDevices;
    for (const DeviceReport &report : devices) {
        if (!report.summary.ooms.empty())
            oomDevices += (oomDevices.empty() ? "" : ", ") + report.summary.name;
    }
    if (devices.size() > 1 && !oomDevices.empty())
        out << "Ran out of memory on " << oomDevices << " (of " << devices.size() << " devices)\n";
}

// Truncation, warnings and the state at the end.
void writeCoverage(std::ostringstream &out, const DeviceSummary &s)
{
    if (s.coverage.truncated) {
        out << "  Truncated      the trace does not reach back to the start of recording";
        if (s.coverage.coversFromUs)
            out << "; it covers from time " << *s.coverage.coversFromUs << " us";
        out << " (";
        for (size_t i = 0; i < s.coverage.evidence.size(); ++i)
            out << (i ? "; " : "") << s.coverage.evidence[i];
        out << "); " << s.coverage.ghostBlocks << " blocks (" << formatBytes(s.coverage.ghostBytes) << ") are older than it\n";
    }
    for (const FileWarning &w : s.warnings)
        out << "  Warning        " << w.message << "\n";
    if (s.traceTotals)
        out << "  Trace totals   peak Total Allocated " << formatBytes(s.traceTotals->peakAllocated) << " at event "
            << s.traceTotals->peakIndex.index() << "; at the end " << formatBytes(s.traceTotals->finalAllocated)
            << " allocated, " << formatBytes(s.traceTotals->finalReserved) << " reserved\n";
    else
        out << "  At the end     " << formatBytes(s.final.reserved) << " reserved in " << s.final.segments << (s.final.segments == 1 ? " segment, " : " segments, ")
            << formatBytes(s.final.allocated) << " allocated (" << formatBytes(s.final.requested) << " requested), "
            << formatBytes(s.final.inactive) << " free; largest free block " << formatBytes(s.final.largestInactive)
            << ", external fragmentation " << static_cast<int>(s.final.externalFragmentation * 100 + 0.5) << "%\n";
}

void writeOoms(std::ostringstream &out, const DeviceReport &report)
{
    for (const OomDiagnosis &o : report.summary.ooms) {
        out << "  OOM at event " << o.event.index() << ": " << formatBytes(o.requested) << " requested, device reported "
            << formatBytes(o.deviceFree) << " free" << (o.perProcessLimit() ? " (so " + std::string(kProcessLimitFinding) + ")" : std::string())
            << "; " << formatBytes(o.reservedFree) << " free in reserved segments, largest block " << formatBytes(o.largestFreeBlock) << " -> "
            << o.verdict() << "\n";
        if (const auto outside = o.outsideAllocator(report.deviceTotal))
            out << "    " << formatBytes(*outside) << " of the device was held outside PyTorch's allocator (CUDA context, NCCL, cuBLAS workspaces, "
                << "other processes): the device's " << formatBytes(*report.deviceTotal) << " less " << formatBytes(o.deviceFree) << " free and "
                << formatBytes(o.reservedBytes) << " reserved\n";
        else
            out << "    memory outside PyTorch's allocator: give --gpu PRESET (the file does not record the device's total)\n";
    }
}

// The units holding most, largest first, then what no unit made: a line, however many units.
void writeUnits(std::ostringstream &out, const char *when, const std::vector<UnitBytes> &units, UnitSource source)
{
    const std::vector<UnitBytes> made = unitsByBytes(units);
    const auto outside = std::find_if(units.begin(), units.end(), [](const UnitBytes &u) { return u.unit.empty() && !u.beforeTrace; });
    const auto before = std::find_if(units.begin(), units.end(), [](const UnitBytes &u) { return u.beforeTrace; });
    constexpr size_t kShown = 6;
    out << "  " << when << " by unit (" << unitSourceText(source) << "):";
    for (size_t i = 0; i < std::min(made.size(), kShown); ++i)
        out << " " << made[i].unit << " " << formatBytes(made[i].bytes) << ";";
    if (made.size() > kShown)
        out << " " << made.size() - kShown << " more units " << formatBytes(std::accumulate(made.begin() + kShown, made.end(), uint64_t{0}, [](uint64_t sum, const UnitBytes &u) { return sum + u.bytes; })) << ";";
    if (outside != units.end())
        out << " outside any unit " << formatBytes(outside->bytes) << ";";
    if (before != units.end())
        out << " before the trace " << formatBytes(before->bytes) << ";";
    out << "\n";
}

// "366 MiB", or "122–155 MiB" when the layers differ.
std::string bytesRange(uint64_t least, uint64_t most)
{
    return least == most ? formatBytes(most) : formatBytes(least) + "–" + formatBytes(most);
}

// The layers' forward in a line: how many, where the loop is, what each keeps and needs.
void writeLayers(std::ostringstream &out, const Snapshot &snapshot, const LayersSummary &l)
{
    uint64_t keptLeast = UINT64_MAX, keptMost = 0, briefLeast = UINT64_MAX, briefMost = 0, atPeak = 0;
    for (const LayerPassFigures &f : l.forward) {
        keptLeast = std::min(keptLeast, f.retainedBytes), keptMost = std::max(keptMost, f.retainedBytes);
        briefLeast = std::min(briefLeast, f.transientBytes), briefMost = std::max(briefMost, f.transientBytes);
        atPeak += f.atPeakBytes;
    }
    out << "  Layers         " << l.forward.size() << " (" << layersOrigin(snapshot, l) << "); in forward pass "
        << l.pass << " each keeps " << bytesRange(keptLeast, keptMost) << " for backward and needs " << bytesRange(briefLeast, briefMost)
        << " more for a moment; " << formatBytes(atPeak) << " of theirs live at the peak\n";
}

void writeStepsAndLeaks(std::ostringstream &out, const Snapshot &snapshot, const DeviceSummary &s)
{
    if (!s.steps.empty()) {
        const StepSummary &peakStep = highestStep(s.steps);
        const size_t partial = s.steps.size() - wholeStepCount(s.steps);
        out << "  Steps          " << s.steps.size() << (partial ? " (" + std::to_string(partial) + " cut by the window, partial)" : std::string()) << "; the highest peak, " << formatBytes(peakStep.peakActiveBytes) << ", in "
            << stepName(peakStep) << "; at the end of the steps " << formatBytes(s.steps.front().endActiveBytes) << " -> "
            << formatBytes(s.steps.back().endActiveBytes) << " (steps from " << stepSourceText(s.stepsFrom) << ")\n";
    }
    for (const LeakSuspect &l : s.leakSuspects) {
        out << "  Leak suspect   " << formatBytes(l.bytes) << " in " << l.allocations << " allocations, grew in " << l.steps << " steps, at "
            << siteLine(snapshot, allocationSite(snapshot, l.stack)) << "\n";
    }
    if (!s.whyNoLeakSuspects.empty())
        out << "  Leak suspects  none: " << s.whyNoLeakSuspects << "\n";
}

void writeDevice(std::ostringstream &out, const Snapshot &snapshot, const DeviceReport &report)
{
    const DeviceSummary &s = report.summary;
    out << "\nDevice " << s.name << ": " << groupDigits(s.entries) << " trace entries";
    if (!s.phases.empty())
        out << ", " << s.phases.size() << " record_function phases";
    out << '\n';
    out << "  Peak active    " << formatBytes(s.peakActiveBytes) << " (" << groupDigits(s.peakActiveBytes) << " B)";
    if (s.peakIndex)
        out << " at event " << s.peakIndex->index();
    else
        out << " before the trace began";
    out << ", " << s.liveBlocksAtPeak << " live blocks\n";
    out << "  Peak reserved  " << formatBytes(s.peakReservedBytes) << " (" << groupDigits(s.peakReservedBytes) << " B)\n";
    out << "  Before trace   " << formatBytes(s.initialBytes) << " in " << s.initialBlocks << " blocks, "
        << formatBytes(s.startReservedBytes) << " reserved\n";
    writeCoverage(out, s);
    writePools(out, s.poolsAtEnd, "at the end");
    writeOoms(out, report);
    out << "  At the peak by category:";
    if (!snapshot.facts.hasFrames)
        out << " " << kNotRecordedNoStacks;
    for (int c = 0; c < kCategoryCount && snapshot.facts.hasFrames; ++c) {
        if (s.categoryBytesAtPeak[static_cast<size_t>(c)])
            out << " " << categoryLabel(static_cast<Category>(c)) << " " << formatBytes(s.categoryBytesAtPeak[static_cast<size_t>(c)]) << ";";
    }
    std::string older;
    for (int c = 0; c < kCategoryCount; ++c) {
        if (const uint64_t bytes = s.categoryBytesFromBeforeTrace[static_cast<size_t>(c)]; bytes && Category(c) != Category::Unknown)
            older += (older.empty() ? "" : ", ") + std::string(categoryLabel(static_cast<Category>(c))) + " " + formatBytes(bytes);
    }
    if (!older.empty())
        out << " of which from before the trace, named by their blocks' frames: " << older;
    out << "\n";
    if (s.units)
        writeUnits(out, "At the peak", s.unitsAtPeak, s.units->source());
    if (s.layers)
        writeLayers(out, snapshot, *s.layers);
    writeStepsAndLeaks(out, snapshot, s);
    if (!s.topLiveAtPeak.empty()) {
        out << "  Largest allocations live at the peak:\n";
        writeLive(out, snapshot, s.topLiveAtPeak);
    }
    if (report.at) {
        const PointSummary &p = *report.at;
        out << "  " << (p.index ? "At event " + std::to_string(p.index->index()) : s.entries ? std::string("Before the first entry") : std::string("At the final state (the file has no trace entries)")) << ": "
            << formatBytes(p.activeBytes) << " active, " << formatBytes(p.reservedBytes) << " reserved, "
            << p.liveBlocks << " live blocks; largest:\n";
        writeLive(out, snapshot, p.topLive);
        writePools(out, p.pools, "there");
        if (s.units)
            writeUnits(out, "There", p.units, s.units->source());
    }
}

} // namespace

std::string summaryText(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices)
{
    std::ostringstream out;
    writeFileHeader(out, snapshot, file, devices);
    for (const DeviceReport &report : devices)
        writeDevice(out, snapshot, report);
    return out.str();
}

} // namespace memlens
