#include "report/SummaryReport.h"

#include "figures/DeviceFigures.h"
#include "index/FrameFilter.h"
#include "model/ByteFormat.h"
#include "report/OptionalJson.h"
#include "report/SiteJson.h"
#include "report/JsonText.h"
#include "report/LayersJson.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace memlens {

namespace key = summary_keys;

namespace {

using nlohmann::json;

json framesJson(const Snapshot &snapshot, StackId stack)
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

json actionsJson(const DeviceSummary &s)
{
    json actions = json::object();
    for (int a = 0; a < kActionCount; ++a) {
        if (s.actions[a] && static_cast<Action>(a) != Action::Other)
            actions[std::string(actionName(static_cast<Action>(a)))] = s.actions[a];
    }
    for (const auto &[name, count] : s.otherActions)
        actions[name] = count;
    return actions;
}

json oomsJson(const DeviceSummary &s, std::optional<uint64_t> deviceTotal)
{
    json ooms = json::array();
    for (const OomDiagnosis &o : s.ooms)
        ooms.push_back({{"index", o.event},
                        {"size", o.requested},
                        {"device_free", o.deviceFree},
                        {"time_us", o.timeUs},
                        {"reserved_bytes", o.reservedBytes},
                        {"reserved_free_bytes", o.reservedFree},
                        {"largest_free_block", o.largestFreeBlock},
                        {"outside_allocator_bytes", optionalJson(o.outsideAllocator(deviceTotal))},
                        {"per_process_limit", o.perProcessLimit()},
                        {"verdict", o.verdict()}});
    return ooms;
}

json phasesJson(const DeviceSummary &s)
{
    json phases = json::array();
    for (const PhaseRange &p : s.phases)
        phases.push_back({{"name", p.name}, {"start_time_us", optionalJson(p.startUs)}, {"end_time_us", optionalJson(p.endUs)}});
    return phases;
}

json stepsJson(const DeviceSummary &s)
{
    json steps = json::array();
    for (const StepSummary &st : s.steps) {
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
        if (st.iteration)
            steps.back()["iteration"] = *st.iteration;
    }
    return steps;
}

json leakSuspectsJson(const Snapshot &snapshot, const DeviceSummary &s)
{
    json suspects = json::array();
    for (const LeakSuspect &l : s.leakSuspects) {
        suspects.push_back({{"frames", framesJson(snapshot, l.stack)},
                            {"bytes", l.bytes},
                            {"allocations", l.allocations},
                            {"steps", l.steps},
                            {"per_step_bytes", l.perStepBytes}});
        addSiteJson(suspects.back(), snapshot, allocationSite(snapshot, l.stack));
    }
    return suspects;
}

// How much of the run the file covers, its warnings, and the trace's own totals (newer torch).
void addCoverageJson(json &d, const DeviceSummary &s)
{
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
}

// Live bytes by unit: `module` null for what no unit made.
json unitBytesJson(const std::vector<UnitBytes> &units)
{
    json out = json::array();
    for (const UnitBytes &u : units)
        out.push_back({{"module", u.unit.empty() ? json(nullptr) : json(u.unit)}, {"bytes", u.bytes}, {"blocks", u.blocks}, {"before_trace", u.beforeTrace}});
    return out;
}

// `at`: what --at asked about.
json pointJson(const Snapshot &snapshot, const PointSummary &p)
{
    return {{"index", optionalJson(p.index)},
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
              {"pools", poolsJson(p.pools)}}},
            {"modules", unitBytesJson(p.units)}};
}

json deviceJson(const Snapshot &snapshot, const DeviceReport &report)
{
    const DeviceSummary &s = report.summary;
    json d = {
        {key::device, s.device},
        {"name", s.name},
        {"entries", s.entries},
        {"actions", actionsJson(s)},
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
        {key::ooms, oomsJson(s, report.deviceTotal)},
        {"phases", phasesJson(s)},
        {"steps", stepsJson(s)},
        {"steps_from", s.stepsFrom == StepSource::None ? json(nullptr) : json(stepSourceName(s.stepsFrom))},
        {"leak_suspects", leakSuspectsJson(snapshot, s)},
        {"no_leak_suspects_because", s.whyNoLeakSuspects.empty() ? json(nullptr) : json(s.whyNoLeakSuspects)},
    };
    d[key::categories] = categoryBytesJson(s.categoryBytesAtPeak);
    d["category_bytes_from_before_trace"] = categoryBytesJson(s.categoryBytesFromBeforeTrace);
    addUnitsJson(d, s.units ? s.units->source() : UnitSource::None, s.unitsAtPeak);
    addLayersJson(d, snapshot, s);
    addCoverageJson(d, s);
    if (report.at)
        d["at"] = pointJson(snapshot, *report.at);
    return d;
}

} // namespace

void addUnitsJson(nlohmann::json &object, UnitSource source, const std::vector<UnitBytes> &atPeak)
{
    object[key::unitsFrom] = source == UnitSource::None ? json(nullptr) : json(kUnitSourceNames.name(source));
    object[key::unitsAtPeak] = unitBytesJson(atPeak);
}

DeviceReport reportDevice(const IndexedDevice &device, size_t top, std::optional<TracePoint> at, std::optional<uint64_t> deviceTotal)
{
    DeviceReport report{device.figures->summary, std::nullopt, deviceTotal};
    // Largest first, ties by address: the first `top` of a longer list are the list of `top`.
    if (report.summary.topLiveAtPeak.size() > top)
        report.summary.topLiveAtPeak.resize(top);
    if (at)
        report.at = summarizePoint(*device.snapshot, *device.index, *at, top, device.figures->categories.get(), report.summary.units.get());
    return report;
}

json liveBlockJson(const Snapshot &snapshot, const LiveBlockInfo &b)
{
    json j = {{"addr", b.addr},
              {"size", b.size},
              {"stream", b.stream},
              {"alloc_index", b.allocEvent.isNone() ? json(nullptr) : json(b.allocEvent)},
              {"category", categoryName(b.category)},
              {"frames", framesJson(snapshot, b.stack)},
              {"labels", b.labels}};
    addSiteJson(j, snapshot, allocationSite(snapshot, b.stack, b.autogradThread));
    if (b.userMetadata != StringTable::kEmpty)
        j["user_metadata"] = snapshot.strings.at(b.userMetadata);
    if (b.compileContext != StringTable::kEmpty)
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

namespace {

uint64_t bytesField(const json &o, const char *name)
{
    const auto it = o.find(name);
    if (it == o.end() || !it->is_number_unsigned())
        throw std::invalid_argument(name);
    return it->get<uint64_t>();
}

// `units_from` and `modules_at_peak`, absent in summaries written before units were: false when
// present with a wrong type.
bool readUnits(const json &d, SummaryFileDevice &f)
{
    const auto from = d.find(key::unitsFrom);
    const auto units = d.find(key::unitsAtPeak);
    if (from == d.end() || from->is_null() || units == d.end())
        return true;
    const std::optional<UnitSource> source = from->is_string() ? kUnitSourceNames.find(from->get<std::string>()) : std::nullopt;
    if (!source || *source == UnitSource::None || !units->is_array())
        return false;
    f.unitsFrom = *source;
    for (const json &u : *units) {
        if (!u.is_object() || !u.contains("module") || !(u["module"].is_null() || u["module"].is_string()) || !u.contains("before_trace") ||
            !u["before_trace"].is_boolean())
            return false;
        f.unitsAtPeak.push_back({u["module"].is_null() ? std::string() : u["module"].get<std::string>(), bytesField(u, "bytes"), bytesField(u, "blocks"),
                                 u["before_trace"].get<bool>()});
    }
    return true;
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
            if (!readUnits(d, f))
                return std::nullopt;
            out.devices.push_back(f);
        }
        return out;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace memlens
