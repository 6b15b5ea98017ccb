#include "report/SummaryReport.h"

#include "analysis/FrameFilter.h"
#include "model/ByteFormat.h"
#include "report/OptionalJson.h"
#include "report/SiteJson.h"
#include "report/JsonText.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace memlens {

namespace key {
// The keys a reader takes back (readSummaryJson), written and read through one spelling.
constexpr const char *file = "file", *devices = "devices", *device = "device", *peakActive = "peak_active_bytes",
                     *peakReserved = "peak_reserved_bytes", *ooms = "oom_entries", *categories = "category_bytes_at_peak";
} // namespace key

namespace {

using nlohmann::json;

json framesJson(const Snapshot &snapshot, uint32_t stack)
{
    json frames = json::array();
    for (FrameId f : stackFrames(snapshot, stack, true))
        frames.push_back(snapshot.frameText(f));
    return frames;
}

json poolsJson(const std::vector<PoolShare> &pools)
{
    json list = json::array();
    for (const PoolShare &p : pools) {
        list.push_back({{"pool_id", {p.pool.first, p.pool.second}},
                        {"segments", p.segments},
                        {"reserved_bytes", p.reserved},
                        {"allocated_bytes", p.allocated}});
        if (p.isPrivate())
            list.back()["made_by"] = p.madeBy;
    }
    return list;
}

json liveJson(const Snapshot &snapshot, const std::vector<LiveBlockInfo> &blocks)
{
    json list = json::array();
    for (const LiveBlockInfo &b : blocks)
        list.push_back(liveBlockJson(snapshot, b));
    return list;
}

json deviceJson(const Snapshot &snapshot, const DeviceReport &report)
{
    const DeviceSummary &s = report.summary;
    json actions = json::object();
    for (int a = 0; a < kActionCount; ++a) {
        if (s.actions[a] && static_cast<Action>(a) != Action::Other)
            actions[std::string(actionName(static_cast<Action>(a)))] = s.actions[a];
    }
    for (const auto &[name, count] : s.otherActions)
        actions[name] = count;
    json ooms = json::array();
    for (const OomDiagnosis &o : s.ooms)
        ooms.push_back({{"index", o.event},
                        {"size", o.requested},
                        {"device_free", o.deviceFree},
                        {"time_us", o.timeUs},
                        {"reserved_bytes", o.reservedBytes},
                        {"reserved_free_bytes", o.reservedFree},
                        {"largest_free_block", o.largestFreeBlock},
                        {"outside_allocator_bytes", optionalJson(o.outsideAllocator(report.deviceTotal))},
                        {"per_process_limit", o.perProcessLimit()},
                        {"verdict", o.verdict()}});
    json phases = json::array();
    for (const PhaseRange &p : s.phases)
        phases.push_back({{"name", p.name}, {"start_time_us", optionalJson(p.startUs)}, {"end_time_us", optionalJson(p.endUs)}});
    json steps = json::array();
    for (const StepSummary &st : s.steps)
        steps.push_back({{"index", st.index},
                         {"first_event", st.firstEvent},
                         {"last_event", st.lastEvent},
                         {"start_time_us", st.startUs},
                         {"end_time_us", st.endUs},
                         {"peak_active_bytes", st.peakActiveBytes},
                         {"end_active_bytes", st.endActiveBytes},
                         {"end_allocated_bytes", st.endAllocatedBytes},
                         {"peak_reserved_bytes", st.peakReservedBytes},
                         {"partial", st.partial}});
    json suspects = json::array();
    for (const LeakSuspect &l : s.leakSuspects) {
        suspects.push_back({{"frames", framesJson(snapshot, l.stack)},
                            {"bytes", l.bytes},
                            {"allocations", l.allocations},
                            {"steps", l.steps},
                            {"per_step_bytes", l.perStepBytes}});
        addSiteJson(suspects.back(), snapshot, allocationSite(snapshot, l.stack));
    }
    json d = {
        {key::device, s.device},
        {"name", s.name},
        {"entries", s.entries},
        {"actions", actions},
        {"initial_bytes", s.initialBytes},
        {"initial_blocks", s.initialBlocks},
        {key::peakActive, s.peakActiveBytes},
        {"peak_index", optionalJson(s.peakIndex)},
        {"peak_time_us", optionalJson(s.peakTimeUs)},
        {"live_blocks_at_peak", s.liveBlocksAtPeak},
        {"top_live_at_peak", liveJson(snapshot, s.topLiveAtPeak)},
        {key::peakReserved, s.peakReservedBytes},
        {"start_reserved_bytes", s.startReservedBytes},
        {"segments", s.final.segments},
        {"reserved_bytes", s.final.reserved},
        {"allocated_bytes", s.final.allocated},
        {"requested_bytes", s.final.requested},
        {"inactive_bytes", s.final.inactive},
        {"largest_inactive_block", s.final.largestInactive},
        {"external_fragmentation", s.final.externalFragmentation},
        {"blocks", s.final.blocks},
        {"pools", poolsJson(s.poolsAtEnd)},
        {key::ooms, ooms},
        {"phases", phases},
        {"steps", steps},
        {"leak_suspects", suspects},
        {"no_leak_suspects_because", s.whyNoLeakSuspects.empty() ? json(nullptr) : json(s.whyNoLeakSuspects)},
    };
    d[key::categories] = categoryBytesJson(s.categoryBytesAtPeak);
    d["truncated"] = s.coverage.truncated;
    d["covers_from_time_us"] = optionalJson(s.coverage.coversFromUs);
    d["truncation_evidence"] = s.coverage.evidence;
    d["ghost_blocks"] = s.coverage.ghostBlocks;
    d["ghost_bytes"] = s.coverage.ghostBytes;
    json warnings = json::array();
    for (const FileWarning &w : s.warnings)
        warnings.push_back({{"kind", w.kind}, {"count", w.count}, {"message", w.message}});
    d["warnings"] = warnings;
    if (s.traceTotals) {
        d["trace_peak_total_allocated"] = s.traceTotals->peakAllocated;
        d["trace_peak_total_allocated_index"] = s.traceTotals->peakIndex;
        d["trace_final_total_allocated"] = s.traceTotals->finalAllocated;
        d["trace_final_total_reserved"] = s.traceTotals->finalReserved;
    }
    if (report.at) {
        const PointSummary &p = *report.at;
        d["at"] = {{"index", optionalJson(p.index)},
                   {"time_us", optionalJson(p.timeUs)},
                   {"active_bytes", p.activeBytes},
                   {"reserved_bytes", p.reservedBytes},
                   {"live_blocks", p.liveBlocks},
                   {"top_live", liveJson(snapshot, p.topLive)},
                   {"allocator",
                    {{"segments", p.allocator.segments},
                     {"reserved_bytes", p.allocator.reserved},
                     {"allocated_bytes", p.allocator.allocated},
                     {"requested_bytes", p.allocator.requested},
                     {"free_bytes", p.allocator.free},
                     {"largest_free_bytes", p.allocator.largestFree},
                     {"pools", poolsJson(p.pools)}}}};
    }
    return d;
}

// Only when a private pool exists: a default pool alone is what "reserved" already says.
void writePools(std::ostringstream &out, const std::vector<PoolShare> &pools, const char *when)
{
    if (std::none_of(pools.begin(), pools.end(), [](const PoolShare &p) { return p.isPrivate(); }))
        return;
    out << "  Pools " << when << '\n';
    for (const PoolShare &p : pools) {
        out << "    " << (p.isPrivate() ? "(" + std::to_string(p.pool.first) + ", " + std::to_string(p.pool.second) + ")" : std::string("default")) << ": "
            << formatBytes(p.reserved) << " reserved in " << p.segments << " segments, " << formatBytes(p.allocated) << " allocated";
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
        out << siteLine(snapshot, allocationSite(snapshot, b.stack));
        for (const std::string &label : b.labels)
            out << "  [" << label << "]";
        out << '\n';
    }
}

} // namespace

json liveBlockJson(const Snapshot &snapshot, const LiveBlockInfo &b)
{
    json j = {{"addr", b.addr},
              {"size", b.size},
              {"stream", b.stream},
              {"alloc_index", b.allocEvent == kBeforeTrace ? json(nullptr) : json(b.allocEvent)},
              {"category", categoryName(b.category)},
              {"frames", framesJson(snapshot, b.stack)},
              {"labels", b.labels}};
    addSiteJson(j, snapshot, allocationSite(snapshot, b.stack));
    if (b.userMetadata)
        j["user_metadata"] = snapshot.strings.at(b.userMetadata);
    if (b.compileContext)
        j["compile_context"] = snapshot.strings.at(b.compileContext);
    return j;
}

json categoryBytesJson(const std::array<uint64_t, kCategoryCount> &bytes)
{
    json categories = json::object();
    for (int c = 0; c < kCategoryCount; ++c)
        categories[std::string(categoryName(static_cast<Category>(c)))] = bytes[static_cast<size_t>(c)];
    return categories;
}

std::string summaryJson(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices)
{
    return jsonText(summaryJsonObject(snapshot, file, devices), 2) + "\n";
}

json summaryJsonObject(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices)
{
    json devicesJson = json::array();
    json oomDevices = json::array();
    for (const DeviceReport &d : devices) {
        devicesJson.push_back(deviceJson(snapshot, d));
        if (!d.summary.ooms.empty())
            oomDevices.push_back(d.summary.device);
    }
    json root = {
        {key::file, file},
        {"format", kFileFormatNames.name(snapshot.facts.format)},
        {"compression", kCompressionNames.name(snapshot.facts.compression)},
        {"pickle_protocol", snapshot.facts.pickleProtocol ? json(snapshot.facts.pickleProtocol) : json(nullptr)},
        {key::devices, devicesJson},
        {"oom_devices", oomDevices},
    };
    // What this kind of file cannot tell, so scripts do not mistake zeros for measurements.
    if (snapshot.facts.format == FileFormat::ChromeTrace) {
        root["unavailable"] = {"segments", "blocks", "reserved_bytes", "allocated_bytes", "requested_bytes",
                               "inactive_bytes", "largest_inactive_block", "external_fragmentation",
                               "device_free", "phases", "allocator_settings"};
    } else if (snapshot.categories) {
        root["unavailable"] = {"devices", "allocations", "stacks", "segments"};
    }
    if (snapshot.categories) {
        const CategorySummary c = summarizeCategories(*snapshot.categories);
        json atPeak = json::object(), final = json::object();
        for (int i = 0; i < CategoryTimeline::kCategories; ++i) {
            atPeak[CategoryTimeline::torchCategoryName(i)] = c.atPeak[static_cast<size_t>(i)];
            final[CategoryTimeline::torchCategoryName(i)] = c.final[static_cast<size_t>(i)];
        }
        root["categories"] = {{"points", c.points}, {"peak_total_bytes", c.peakTotal}, {"peak_time_us", c.peakTimeUs},
                              {"at_peak", atPeak}, {"final", final}};
    }
    return root;
}

std::string summaryText(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices)
{
    std::ostringstream out;
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
    for (const DeviceReport &report : devices) {
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
            out << "  At the end     " << formatBytes(s.final.reserved) << " reserved in " << s.final.segments << " segments, "
            << formatBytes(s.final.allocated) << " allocated (" << formatBytes(s.final.requested) << " requested), "
            << formatBytes(s.final.inactive) << " free; largest free block " << formatBytes(s.final.largestInactive)
            << ", external fragmentation " << static_cast<int>(s.final.externalFragmentation * 100 + 0.5) << "%\n";
        writePools(out, s.poolsAtEnd, "at the end");
        for (const OomDiagnosis &o : s.ooms) {
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
        out << "  At the peak by category:";
        for (int c = 0; c < kCategoryCount; ++c) {
            if (s.categoryBytesAtPeak[static_cast<size_t>(c)])
                out << " " << categoryName(static_cast<Category>(c)) << " " << formatBytes(s.categoryBytesAtPeak[static_cast<size_t>(c)]) << ";";
        }
        out << "\n";
        if (!s.steps.empty()) {
            const StepSummary &peakStep = highestStep(s.steps);
            const size_t partial = s.steps.size() - wholeStepCount(s.steps);
            out << "  Steps          " << s.steps.size() << (partial ? " (" + std::to_string(partial) + " cut by the window, partial)" : std::string()) << "; the highest peak, " << formatBytes(peakStep.peakActiveBytes) << ", in step "
                << peakStep.index << "; at the end of the steps " << formatBytes(s.steps.front().endActiveBytes) << " -> "
                << formatBytes(s.steps.back().endActiveBytes) << "\n";
        }
        for (const LeakSuspect &l : s.leakSuspects) {
            out << "  Leak suspect   " << formatBytes(l.bytes) << " in " << l.allocations << " allocations, grew in " << l.steps << " steps, at "
                << siteLine(snapshot, allocationSite(snapshot, l.stack)) << "\n";
        }
        if (!s.whyNoLeakSuspects.empty())
            out << "  Leak suspects  none: " << s.whyNoLeakSuspects << "\n";
        if (!s.topLiveAtPeak.empty()) {
            out << "  Largest allocations live at the peak:\n";
            writeLive(out, snapshot, s.topLiveAtPeak);
        }
        if (report.at) {
            const PointSummary &p = *report.at;
            out << "  At event " << (p.index ? std::to_string(p.index->index()) : std::string("start")) << ": "
                << formatBytes(p.activeBytes) << " active, " << formatBytes(p.reservedBytes) << " reserved, "
                << p.liveBlocks << " live blocks; largest:\n";
            writeLive(out, snapshot, p.topLive);
            writePools(out, p.pools, "there");
        }
    }
    return out.str();
}

namespace {

uint64_t bytesField(const json &o, const char *name)
{
    const auto it = o.find(name);
    if (it == o.end() || !it->is_number_unsigned())
        throw std::invalid_argument(name);
    return it->get<uint64_t>();
}

} // namespace

std::optional<SummaryFile> readSummaryJson(std::string_view text)
{
    try {
        const json root = json::parse(text);
        if (!root.is_object() || !root.contains(key::file) || !root[key::file].is_string())
            return std::nullopt;
        const json &devices = root.at(key::devices);
        if (!devices.is_array() || devices.empty())
            return std::nullopt;
        SummaryFile out{root[key::file].get<std::string>(), {}};
        for (const json &d : devices) {
            if (!d.is_object() || !d.contains(key::device) || !d[key::device].is_number_integer())
                return std::nullopt;
            SummaryFileDevice f;
            f.device = d[key::device].get<int>();
            f.peakActiveBytes = bytesField(d, key::peakActive);
            f.peakReservedBytes = bytesField(d, key::peakReserved);
            const json &ooms = d.at(key::ooms);
            if (!ooms.is_array())
                return std::nullopt;
            f.oomEntries = ooms.size();
            const json &categories = d.at(key::categories);
            if (!categories.is_object())
                return std::nullopt;
            for (int c = 0; c < kCategoryCount; ++c)
                f.categoryBytesAtPeak[static_cast<size_t>(c)] = bytesField(categories, std::string(categoryName(static_cast<Category>(c))).c_str());
            out.devices.push_back(f);
        }
        return out;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace memlens
