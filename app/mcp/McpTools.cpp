#include "mcp/McpTools.h"

#include "mcp/McpAnswers.h"
#include "mcp/McpArguments.h"
#include "questions/AdviseQuestion.h"
#include "questions/AllocatorStateQuestion.h"
#include "questions/CommandOptions.h"
#include "questions/DiffQuestion.h"
#include "questions/LiveAtQuestion.h"
#include "questions/RankOverviewQuestion.h"
#include "questions/ReplayQuestion.h"
#include "questions/SearchQuestion.h"
#include "questions/StacksQuestion.h"
#include "questions/StepsQuestion.h"
#include "questions/StitchQuestion.h"
#include "questions/SummaryQuestion.h"


namespace memlens {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// advise and replay print their lists whole, as the commands do (they take no --top); this
// only bounds an answer.
constexpr size_t kWholeLists = 100;

// A snapshot file below a root, decoded (once per modification) for a tool.
struct Opened {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
};

Opened open(const json &args, McpToolContext &context, const std::string &argument = "path")
{
    const fs::path path = context.allowedPath(requiredString(args, argument), argument, McpToolContext::PathKind::File);
    return {path.string(), context.snapshot(path, argument)};
}

std::optional<int64_t> deviceArgument(const json &args)
{
    return integerArgument(args, *commandSpec("summary").option("device"));
}

// The command line's rule for gpu and capacity (questions/CapacityRequest), with MCP's names.
CapacityRequest capacityArguments(const json &args)
{
    return resolveCapacity(stringArgument(args, "gpu"), integerArgument(args, "capacity", 1, INT64_MAX), "");
}

McpToolResult summaryTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const fs::path path = context.allowedPath(requiredString(args, "path"), "path");
    if (fs::is_directory(path)) {
        const SnapshotCache cache;
        const RankOverviewAnswer a = answerRankOverview(context.rankFolder(path), {std::nullopt, 2}, &cache);
        return {answer(rankOverviewAnswerObject(a), top), rankOverviewAnswerText(a)};
    }
    const Opened o = open(args, context);
    SummaryRequest request;
    request.device = deviceArgument(args);
    request.oneDevice = true;
    request.top = top;
    const SummaryAnswer a = answerSummary(o.file, o.snapshot, request);
    return {answer(summaryDeviceJson(a), top), summaryBrief(a)};
}

MomentRequest momentRequest(const json &args, size_t top)
{
    return {deviceArgument(args), momentArgument(args).value_or(Moment::peak()), top};
}

McpToolResult liveAtTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const Opened o = open(args, context);
    const MomentAnswer a = answerMoment(o.file, o.snapshot, momentRequest(args, top));
    return {answer(liveAtJson(a), top), liveAtBrief(a)};
}

McpToolResult allocatorStateTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    const MomentAnswer a = answerAllocatorState(o.file, o.snapshot, momentRequest(args, 1));
    return {answer(allocatorStateJson(a), kWholeLists), allocatorStateBrief(a)};
}

McpToolResult stacksTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const Opened o = open(args, context);
    const StacksRequest request{deviceArgument(args), momentArgument(args).value_or(Moment::peak()), flagArgument(args, "bottom_up"), top};
    const StacksAnswer a = answerStacks(o.file, o.snapshot, request);
    return {answer(stacksJson(a), top), stacksBrief(a)};
}

McpToolResult adviseTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    AdviseRequest request;
    request.device = deviceArgument(args);
    request.at = momentArgument(args);
    request.capacity = capacityArguments(args);
    const CommandSpec &advise = commandSpec("advise");
    if (const std::optional<int64_t> gpus = integerArgument(args, *advise.option("gpus")))
        request.gpus = static_cast<int>(*gpus);
    request.gpusSource = "gpus";
    const AdviseAnswer a = answerAdvise(o.file, o.snapshot, request);
    return {answer(adviseAnswerJson(a), kWholeLists), adviseBrief(a)};
}

McpToolResult replayTool(const json &args, McpToolContext &context)
{
    const Opened o = open(args, context);
    const ReplayRequest request{deviceArgument(args), stringArgument(args, "alloc_conf"), capacityArguments(args)};
    const ReplayAnswer a = answerReplay(o.file, *o.snapshot, request);
    return {answer(replayAnswerJson(a), kWholeLists), replayBrief(a)};
}

McpToolResult diffTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "diff");
    const Opened a = open(args, context, "a"), b = open(args, context, "b");
    DiffRequest request;
    request.device = deviceArgument(args);
    request.at = momentArgument(args).value_or(Moment::peak());
    request.top = top;
    request.limits = {numberArgument(args, "fail_if_peak_grows", -100, 1e9), numberArgument(args, "fail_if_reserved_grows", -100, 1e9)};
    const DiffAnswer d = answerDiff(a.file, a.snapshot, b.file, b.snapshot, request);
    return {answer(diffAnswerJson(d, true), top), diffBrief(d)};
}

McpToolResult stepsAndLeaksTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const Opened o = open(args, context);
    const StepsAnswer a = answerSteps(o.file, o.snapshot, deviceArgument(args));
    return {answer(stepsJson(a), top), stepsBrief(a)};
}

McpToolResult stitchRankTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const fs::path path = context.allowedPath(requiredString(args, "path"), "path", McpToolContext::PathKind::Folder);
    const std::optional<int64_t> rank = integerArgument(args, "rank", 0, INT32_MAX);
    if (!rank)
        throw McpArgumentError("rank: required");
    const SnapshotCache cache;
    const StitchAnswer a = answerStitch(context.rankFolder(path), {static_cast<int>(*rank), top}, &cache);
    return {answer(stitchAnswerObject(a), top), stitchBrief(a)};
}

McpToolResult searchTool(const json &args, McpToolContext &context)
{
    const size_t top = topArgument(args, "summary");
    const Opened o = open(args, context);
    const SearchAnswer a = answerSearch(o.file, o.snapshot, {deviceArgument(args), requiredString(args, "text"), top});
    return {answer(searchJson(a), top), searchBrief(a)};
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
