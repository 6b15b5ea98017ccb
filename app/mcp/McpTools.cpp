#include "mcp/McpTools.h"

#include "advice/AdviceReport.h"
#include "figures/SnapshotSummary.h"
#include "mcp/McpAnswers.h"
#include "mcp/McpArguments.h"
#include "model/ByteFormat.h"
#include "options/CapacityOption.h"
#include "pipeline/RankStitch.h"
#include "questions/CommandOptions.h"
#include "ranks/RankFiles.h"
#include "ranks/RankSummary.h"
#include "ranks/RunGpus.h"
#include "replay/Replay.h"
#include "replay/ReplayAdmission.h"
#include "replay/ReplayReport.h"
#include "report/JsonText.h"
#include "report/RunDiff.h"
#include "report/SummaryReport.h"
#include "stitch/StitchedReport.h"
#include "views/AllocationSearch.h"
#include "views/CallTree.h"

#include <algorithm>
#include <sstream>
#include <thread>

namespace memlens {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxSearchText = 1000;
// advise and replay print their lists whole, as the commands do (they take no --top); this
// only bounds an answer.
constexpr size_t kWholeLists = 100;

// One device of a file, opened and indexed for a tool.
struct Opened {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    int device = 0;
    std::unique_ptr<const DeviceIndex> index;
};

Opened open(const json &args, McpToolContext &context, const std::string &argument = "path")
{
    Opened o;
    const fs::path path = context.allowedPath(requiredString(args, argument), argument, McpToolContext::PathKind::File);
    o.file = path.string();
    o.snapshot = context.snapshot(path, argument);
    o.device = deviceArgument(args, *o.snapshot);
    o.index = std::make_unique<const DeviceIndex>(*o.snapshot, o.device);
    return o;
}

// The device's `summary --json` object, as the CLI prints it.
json deviceSummary(const Opened &o, size_t top, std::optional<EventId> at = std::nullopt)
{
    return summaryJsonObject(*o.snapshot, o.file, {reportDevice(*o.snapshot, *o.index, top, at)})["devices"][0];
}

// The command line's rule for gpu and capacity (CapacityOption), with MCP's argument names.
CapacityOption capacityArguments(const json &args)
{
    try {
        return resolveCapacity(stringArgument(args, "gpu"), integerArgument(args, "capacity", 1, INT64_MAX), "");
    } catch (const CapacityArgumentError &e) {
        throw McpArgumentError(e.argument + ": " + e.what());
    }
}

McpToolResult summaryTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const fs::path path = context.allowedPath(requiredString(args, "path"), "path");
    if (fs::is_directory(path)) {
        RankFolder folder = context.rankFolder(path);
        if (folder.files.empty())
            throw McpArgumentError("path: " + path.string() + " holds no snapshots");
        const std::optional<int64_t> step = folder.latestStep();
        const SnapshotCache cache;
        const std::vector<RankFigures> ranks = summarizeRanks(folder.filesOfStep(step), 2, &cache);
        return {answer(rankOverviewJsonObject(folder, step, ranks), top), rankOverviewText(folder, step, ranks)};
    }
    const Opened o = open(args, context);
    json d = deviceSummary(o, top);
    std::ostringstream text;
    text << o.file << " device " << o.device << ": peak active " << formatBytes(d["peak_active_bytes"].get<uint64_t>()) << " at event "
         << jsonText(d["peak_index"]) << ", peak reserved " << formatBytes(d["peak_reserved_bytes"].get<uint64_t>()) << ", "
         << d["oom_entries"].size() << " OOM entries, " << d["steps"].size() << " steps";
    return {answer(json{{"file", o.file}, {"device", d}}, top), text.str()};
}

McpToolResult liveAtTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const Opened o = open(args, context);
    const Moment m = momentArgument(args).value_or(Moment::peak());
    const EventId e = eventArgument(*o.index, m);
    json at = deviceSummary(o, top, e)["at"];
    std::ostringstream text;
    text << "at " << m.text() << " (event " << jsonText(at["index"]) << "): " << formatBytes(at["active_bytes"].get<uint64_t>()) << " active in "
         << jsonText(at["live_blocks"]) << " blocks, " << formatBytes(at["reserved_bytes"].get<uint64_t>()) << " reserved";
    if (!at["top_live"].empty())
        text << "; largest " << formatBytes(at["top_live"][0]["size"].get<uint64_t>());
    return {answer(json{{"file", o.file}, {"device", o.device}, {"at", m.text()}, {"event", e.index()}, {"live", at}}, top), text.str()};
}

McpToolResult allocatorStateTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    const Moment m = momentArgument(args).value_or(Moment::peak());
    const EventId e = eventArgument(*o.index, m);
    const json at = deviceSummary(o, 1, e)["at"];
    const json &a = at["allocator"];
    std::ostringstream text;
    text << "at " << m.text() << " (event " << e.index() << "): " << jsonText(a["segments"]) << " segments, " << formatBytes(a["reserved_bytes"].get<uint64_t>())
         << " reserved, " << formatBytes(a["allocated_bytes"].get<uint64_t>()) << " allocated, " << formatBytes(a["free_bytes"].get<uint64_t>())
         << " free, largest free block " << formatBytes(a["largest_free_bytes"].get<uint64_t>());
    return {answer(json{{"file", o.file}, {"device", o.device}, {"at", m.text()}, {"event", e.index()}, {"allocator", a}}, 100), text.str()};
}

McpToolResult stacksTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const Opened o = open(args, context);
    const Moment m = momentArgument(args).value_or(Moment::peak());
    const EventId e = eventArgument(*o.index, m);
    CallTreeOptions options;
    options.bottomUp = flagArgument(args, "bottom_up");
    const CallTree tree(*o.snapshot, *o.index, o.index->liveAt(e), options);
    // Each path from the root with the bytes of its last node (the folded lines), largest first.
    std::vector<CallTree::FoldedPath> paths = tree.foldedPaths();
    std::stable_sort(paths.begin(), paths.end(), [](const auto &x, const auto &y) { return x.bytes > y.bytes; });
    json list = json::array();
    std::ostringstream text;
    text << formatBytes(tree.root().bytes) << " live at " << m.text() << " (event " << e.index() << ") in " << paths.size() << " call paths";
    for (size_t i = 0; i < paths.size() && i < top; ++i) {
        if (i < 3)
            text << "; " << formatBytes(paths[i].bytes) << " at " << (paths[i].frames.empty() ? std::string("?") : paths[i].frames.back());
        list.push_back({{"bytes", paths[i].bytes}, {"frames", paths[i].frames}});
    }
    json j = {{"file", o.file}, {"device", o.device}, {"at", m.text()}, {"event", e.index()}, {"live_bytes", tree.root().bytes},
              {"paths", list}, {"paths_count", paths.size()}, {"bottom_up", options.bottomUp}};
    return {answer(std::move(j), top), text.str()};
}

McpToolResult adviseTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    AdviceOptions options;
    options.at = momentArgument(args);
    if (options.at)
        eventArgument(*o.index, *options.at);
    const CapacityOption capacity = capacityArguments(args);
    options.capacity = capacity.bytes;
    options.capacitySource = capacity.source;
    options.deviceTotal = capacity.deviceTotal;
    const std::optional<int64_t> gpus = integerArgument(args, "gpus", 1, 1 << 20);
    options.gpus = runGpus(gpus ? std::optional<int>(int(*gpus)) : std::nullopt, "gpus", o.file);
    const AllocationCategories categories(*o.snapshot, *o.index);
    const Advice advice = advise(*o.snapshot, *o.index, categories, options);
    std::ostringstream text;
    text << "at the " << (advice.oom ? "OOM" : "peak") << " (event " << advice.event.index() << "): " << formatBytes(advice.peakBytes) << " allocated";
    for (size_t i = 0; i < advice.fixes.size() && i < 3; ++i)
        text << "; " << advice.fixes[i].technique << " saves " << formatBytes(uint64_t(advice.fixes[i].savesBytes))
             << (advice.fixes[i].fits ? (*advice.fixes[i].fits ? " (fits)" : " (does not fit)") : "");
    return {answer(adviceJson(o.file, o.device, advice), kWholeLists), text.str()};
}

McpToolResult replayTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    if (const std::optional<std::string> why = whyNotReplayable(*o.snapshot, o.device))
        throw McpArgumentError("path: " + o.file + ": " + *why);
    ReplayOptions options;
    const std::optional<std::string> conf = stringArgument(args, "alloc_conf");
    try {
        options.config = conf ? AllocatorConfig::parse(*conf) : AllocatorConfig::recorded(*o.snapshot);
    } catch (const std::invalid_argument &e) {
        throw McpArgumentError(std::string("alloc_conf: ") + e.what());
    }
    const CapacityOption capacity = capacityArguments(args);
    options.capacity = capacity.bytes;
    options.capacitySource = capacity.source;
    options.deviceTotal = capacity.deviceTotal;
    const ReplayResult r = replayTrace(*o.snapshot, *o.index, options);
    std::ostringstream text;
    text << "under " << (conf ? *conf : std::string("the file's own setting")) << ": predicted reserved peak " << formatBytes(r.predicted.peakReservedBytes)
         << " (recorded " << formatBytes(r.recorded.peakReservedBytes) << ")" << (r.predicted.oomAt ? ", OOM at event " + std::to_string(r.predicted.oomAt->index()) : ", no OOM");
    return {answer(replayJson(o.file, r), kWholeLists), text.str()};
}

McpToolResult diffTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    json argsA = args, argsB = args;
    const Opened a = open(argsA, context, "a"), b = open(argsB, context, "b");
    if (a.device != b.device)
        throw McpArgumentError("device: the two files' first devices differ; give device");
    const Moment m = momentArgument(args).value_or(Moment::peak());
    eventArgument(*a.index, m);
    eventArgument(*b.index, m);
    const RunDiff d = diffRuns(*a.snapshot, *a.index, a.file, *b.snapshot, *b.index, b.file, m);
    json j = diffJson(d, a.device, top);
    // The CI gate's verdict, as `diff --fail-if-…-grows` decides it.
    const DiffLimits limits{numberArgument(args, "fail_if_peak_grows", -100, 1e9), numberArgument(args, "fail_if_reserved_grows", -100, 1e9)};
    const DiffGate gate = diffGate(d, limits);
    j["gate"] = gateJson(gate);
    std::ostringstream text;
    text << "peak active " << formatBytes(d.a.peakActiveBytes) << " → " << formatBytes(d.b.peakActiveBytes) << ", peak reserved "
         << formatBytes(d.a.peakReservedBytes) << " → " << formatBytes(d.b.peakReservedBytes) << "; " << d.sites.size() << " call sites differ"
         << (limits.peakGrowsPercent || limits.reservedGrowsPercent ? (gate.passed() ? "; the gate passes" : "; the gate fails") : "");
    return {answer(std::move(j), top), text.str()};
}

McpToolResult stepsAndLeaksTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const Opened o = open(args, context);
    const json d = deviceSummary(o, 1);
    std::ostringstream text;
    text << d["steps"].size() << " steps, " << d["leak_suspects"].size() << " leak suspects";
    json j = {{"file", o.file}, {"device", o.device}, {"steps", d["steps"]}, {"leak_suspects", d["leak_suspects"]}, {"phases", d["phases"]}};
    return {answer(std::move(j), top), text.str()};
}

McpToolResult stitchRankTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const fs::path path = context.allowedPath(requiredString(args, "path"), "path", McpToolContext::PathKind::Folder);
    const std::optional<int64_t> rank = integerArgument(args, "rank", 0, INT32_MAX);
    if (!rank)
        throw McpArgumentError("rank: required");
    const RankFolder folder = context.rankFolder(path);
    if (dumpsOfRank(folder, static_cast<int>(*rank)).empty())
        throw McpArgumentError("rank: " + path.string() + " holds no dumps of rank " + std::to_string(*rank));
    const SnapshotCache cache;
    const StitchedRun run = stitchRank(folder, static_cast<int>(*rank), &cache);
    std::vector<DeviceReport> reports;
    for (int d : run.snapshot->devices()) {
        const DeviceIndex index(*run.snapshot, d);
        reports.push_back(reportDevice(*run.snapshot, index, top, std::nullopt));
    }
    json j = stitchedSummaryJsonObject(run, stitchedRunName(folder.folder, static_cast<int>(*rank)), static_cast<int>(*rank), reports);
    std::ostringstream text;
    text << run.dumps.size() << " dumps of rank " << *rank << " stitched, " << run.gaps.size() << " gaps";
    if (!reports.empty()) {
        const DeviceSummary &s = reports.front().summary;
        text << "; " << s.steps.size() << " steps (" << s.steps.size() - wholeStepCount(s.steps) << " partial), peak active "
             << formatBytes(s.peakActiveBytes);
    }
    return {answer(std::move(j), top), text.str()};
}

McpToolResult searchTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args);
    const Opened o = open(args, context);
    const std::string needle = requiredString(args, "text");
    if (needle.empty())
        throw McpArgumentError("text: empty");
    // Matched against every frame, label and address: a bounded needle bounds the work.
    if (needle.size() > kMaxSearchText)
        throw McpArgumentError("text: longer than " + std::to_string(kMaxSearchText) + " bytes");
    const AllocationSearch search(*o.snapshot, *o.index, needle);
    const AllocationCategories categories(*o.snapshot, *o.index);
    std::vector<AllocationId> hits;
    for (uint32_t i = 0; i < o.index->allocationCount(); ++i) {
        if (search.matches(AllocationId(i)))
            hits.push_back(AllocationId(i));
    }
    // The largest first: what an agent asks about next.
    std::stable_sort(hits.begin(), hits.end(), [&](AllocationId x, AllocationId y) { return o.index->detail(x).size > o.index->detail(y).size; });
    json list = json::array();
    for (size_t i = 0; i < hits.size() && i < top; ++i) {
        // Named as summary --json names a live block, with the free that ended it.
        json hit = liveBlockJson(*o.snapshot, liveBlockInfo(*o.index, hits[i], &categories));
        const EventId freed = o.index->allocation(hits[i]).freeCompleted;
        hit["free_index"] = freed == kNever ? json(nullptr) : json(freed.index());
        list.push_back(std::move(hit));
    }
    std::ostringstream text;
    text << hits.size() << " allocations match '" << needle << "'";
    if (!hits.empty())
        text << "; the largest " << formatBytes(o.index->detail(hits.front()).size);
    return {answer(json{{"file", o.file}, {"device", o.device}, {"text", needle}, {"matches", hits.size()}, {"allocations", list}}, top), text.str()};
}

// A tool's arguments: its operands, then options of the command it answers as, each under the
// command's own name and schema (questions/CommandOptions).
json schema(json operands, std::string_view command, std::initializer_list<std::string_view> options, std::vector<std::string> required)
{
    const CommandSpec &spec = commandSpec(command);
    for (std::string_view name : options)
        operands[std::string(name)] = optionSchema(*spec.option(name));
    return {{"type", "object"}, {"properties", std::move(operands)}, {"required", std::move(required)}, {"additionalProperties", false}};
}

const json kPath = {{"type", "string"}, {"description", "a snapshot or profiler trace, below a --root directory"}};
const json kFolder = {{"type", "string"}, {"description", "a folder of dumps, below a --root directory"}};

// search is no command's; its device and top are summary's.
json searchSchema()
{
    return schema({{"path", kPath}, {"text", {{"type", "string"}, {"description", "matched in frames, labels, metadata and addresses"}}}}, "summary",
                  {"device", "top"}, {"path", "text"});
}

} // namespace

const std::vector<McpTool> &mcpTools()
{
    // Each tool answers as a command does (its `command`), and takes that command's flags.
    static const std::vector<McpTool> tools = {
        {"summary", "summary",
         "Key figures of a PyTorch memory snapshot (peak active and reserved with their event, OOM entries and their verdict, "
         "categories at the peak, steps, leak suspects, file warnings), or of a folder of per-rank snapshots (peaks per rank, "
         "imbalance, outliers).",
         schema({{"path", {{"type", "string"}, {"description", "a snapshot file, or a folder of per-rank snapshots"}}}}, "summary", {"device", "top"}, {"path"}),
         summaryTool},
        {"live_at", "summary", "The allocations live at a moment (peak, OOM, end or an event), largest first, with their stacks.",
         schema({{"path", kPath}}, "summary", {"at", "device", "top"}, {"path"}), liveAtTool},
        {"allocator_state", "summary", "The caching allocator's figures at a moment: segments, reserved, allocated, free and the largest free block.",
         schema({{"path", kPath}}, "summary", {"at", "device"}, {"path"}), allocatorStateTool},
        {"stacks", "summary", "The call paths of what is live at a moment, largest first (top-down from the outermost frame, or bottom-up).",
         schema({{"path", kPath}}, "summary", {"at", "device", "top", "bottom_up"}, {"path"}), stacksTool},
        {"advise", "advise",
         "The training setup the snapshot reveals (with evidence and confidence) and the fixes that would save memory, what fits first "
         "and least effort first; allocator settings priced by replaying the trace.",
         schema({{"path", kPath}}, "advise", {"at", "device", "gpu", "capacity", "gpus"}, {"path"}), adviseTool},
        {"replay", "replay",
         "Replays the trace through a model of PyTorch's caching allocator under a PYTORCH_CUDA_ALLOC_CONF setting: the predicted "
         "reserved peak, segments and whether it would run out of memory.",
         schema({{"path", kPath}}, "replay", {"alloc_conf", "device", "gpu", "capacity"}, {"path"}), replayTool},
        {"diff", "diff", "Two runs compared: peaks, categories at each peak, live bytes by call site at a moment, and the CI gate's verdict.",
         schema({{"a", kPath}, {"b", kPath}}, "diff", {"at", "device", "top", "fail_if_peak_grows", "fail_if_reserved_grows"}, {"a", "b"}), diffTool},
        {"steps_and_leaks", "summary",
         "Training steps (each one's peak and its event) and leak suspects (call sites whose live bytes grow step after step).",
         schema({{"path", kPath}}, "summary", {"device", "top"}, {"path"}), stepsAndLeaksTool},
        {"stitch_rank", "summary",
         "One rank's dumps in a folder (a snapshot every N steps) stitched into one run: the dumps, the gaps where entries "
         "were lost, and the run's summary (steps across all dumps, partial ones marked; peaks; leak suspects).",
         schema({{"path", kFolder}}, "summary", {"rank", "top"}, {"path", "rank"}), stitchRankTool},
        {"search", "",
         "Allocations whose frames, labels, metadata or address contain a text, largest first.",
         searchSchema(), searchTool},
    };
    return tools;
}

} // namespace memlens
