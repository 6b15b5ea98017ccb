#include "questions/CommandOptions.h"

#include <algorithm>
#include <stdexcept>

namespace memlens {

namespace {

using K = OptionKind;

// Options several commands share, worded once.
const CommandOption kDevice{"device", K::Integer, "N", "the CUDA device"};
const CommandOption kAt{"at", K::Moment, "peak|oom|end|EVENT", "peak (default), oom (the first OOM entry), end, or an event number"};
const CommandOption kTop{"top", K::Integer, "K", "most items per list", 1, 100, {}, true, {}, {}, 10};
const CommandOption kGpu{"gpu", K::Text, "PRESET", "a GPU preset (h100-80, a100-80, …): the capacity, and the device's total"};
const CommandOption kCapacity{"capacity", K::Integer, "BYTES", "bytes the allocator may reserve", 1};
const CommandOption kGpus{"gpus", K::Integer, "N", "the run's GPU count, for sharding fixes", 1, 1 << 20};
const CommandOption kJson{"json", K::Flag, "", "JSON instead of text", 0, 0, {}, false};
const CommandOption kNoCache{"no_cache", K::Flag, "", "neither read nor write the decoded-snapshot cache", 0, 0, {}, false};
const CommandOption kPeakGrows{"fail_if_peak_grows", K::Number, "PCT", "percent the peak may grow by before the gate fails"};

CommandOption only(CommandOption option, std::string_view form)
{
    option.form = form;
    return option;
}

CommandOption inGroup(CommandOption option, std::string_view group)
{
    option.group = group;
    return option;
}

// An option no MCP tool takes (the tools answer whole lists, at the file's own devices).
CommandOption commandLineOnly(CommandOption option)
{
    option.mcp = false;
    return option;
}

CommandOption byDefault(CommandOption option, int64_t value)
{
    option.byDefault = value;
    return option;
}

CommandSpec summarySpec()
{
    return {"summary",
            "FILE|DIR",
            {only(kDevice, "FILE"), kTop, only(kAt, "FILE"), only(commandLineOnly(kGpu), "FILE"), inGroup(kJson, "output"), kNoCache,
             {"folded", K::Flag, "", "the live stacks as folded lines", 0, 0, {}, false, "FILE", "output"},
             {"bottom_up", K::Flag, "", "stacks from the allocating frame outwards", 0, 0, {}, true, "FILE"},
             only(commandLineOnly({"step", K::Integer, "N", "a folder's dumps of this step (default the latest)", 0, std::numeric_limits<int64_t>::max()}), "DIR"),
             {"threads", K::Integer, "N", "files summarised at once", 1, 1024, {}, false, "DIR"},
             {"rank", K::Integer, "R", "one rank's dumps in a folder", 0, std::numeric_limits<int32_t>::max(), {}, true, "DIR"},
             {"stitch", K::Flag, "", "a rank's dumps as one run", 0, 0, {}, false, "DIR"}},
            {{"FILE", "key figures, or the live stacks as folded lines (--folded)"},
             {"DIR", "per-rank peaks of a folder of snapshots (one per GPU), the imbalance; with --rank R --stitch,\n"
                     "one rank's dumps (one every N steps) as one run: shared entries once, gaps reported"}}};
}

CommandSpec diffSpec()
{
    return {"diff",
            "A B",
            {kAt, kDevice, byDefault(kTop, 20), inGroup(kJson, "output"),
             {"markdown", K::Flag, "", "Markdown for a pull-request comment", 0, 0, {}, false, {}, "output"},
             kPeakGrows,
             {"fail_if_reserved_grows", K::Number, "PCT", "percent the reserved peak may grow by before the gate fails"},
             kNoCache},
            {{"A B", "peaks, categories and live bytes by call site in A and B; exit 3 over a limit"}}};
}

CommandSpec adviseSpec()
{
    return {"advise",
            "FILE",
            {kDevice, kAt, inGroup(kGpu, "capacity"), inGroup(kCapacity, "capacity"), kGpus,
             commandLineOnly({"sort", K::Choice, "effort|saves", "fixes that fit first, least effort first; or by bytes saved", 0, 0, {"effort", "saves"}}),
             kJson, kNoCache},
            {{"FILE", "the setup the snapshot reveals and the fixes: what fits first, least effort first"}}};
}

CommandSpec replaySpec()
{
    return {"replay",
            "FILE",
            {kDevice, {"alloc_conf", K::Text, "CONF", "a PYTORCH_CUDA_ALLOC_CONF setting, e.g. expandable_segments:True; the file's own without it"},
             inGroup(kGpu, "capacity"), inGroup(kCapacity, "capacity"), kJson, kNoCache},
            {{"FILE", "the trace through a model of torch's caching allocator: reserved peak, segments and OOM\n"
                      "under CONF (PYTORCH_CUDA_ALLOC_CONF syntax; default: the file's own setting)"}}};
}

CommandSpec renderSpec()
{
    return {"render",
            "FILE",
            {{"view", K::Text, "VIEW", "the page to draw"},
             {"o", K::Text, "OUT.png|OUT.svg", "the image to write"},
             kAt,
             {"range", K::Text, "A:B", "the events shown"},
             {"search", K::Text, "TEXT", "outline the allocations whose frames, labels, metadata or address match"},
             kDevice,
             {"size", K::Text, "WxH", "the image's size"},
             {"theme", K::Choice, "light|dark", "colours", 0, 0, {"light", "dark"}},
             {"color", K::Choice, "allocation|site|category", "what the timeline's colours say", 0, 0, {"allocation", "site", "category"}},
             {"stack_by", K::Choice, "address|size|allocation", "how segment-timeline stacks its bands (allocation: MemoryViz's order)", 0, 0,
              {"address", "size", "allocation"}},
             {"footer", K::Flag, "", "the file and moment under the image"},
             {"session", K::Text, "S.memlens", "a saved session's view and notes"},
             kNoCache,
             {"compare", K::Text, "B", "a second run beside the first"},
             {"align", K::Choice, "time|event|step", "how the two runs line up", 0, 0, {"time", "event", "step"}},
             {"fix", K::Text, "TECHNIQUE", "one of `memlens advise`'s fixes, applied (estimator)"},
             {"what_if", K::Text, "CONF", "the replay under PYTORCH_CUDA_ALLOC_CONF=CONF (timeline, segments)"},
             {"rank", K::Integer, "R", "one rank's dumps in a folder, stitched"}},
            {{"FILE --view VIEW -o OUT.png|OUT.svg", "a page of the window drawn to an image, as the window draws it (FILE: with --rank, a folder of dumps)"},
             {"DIR -o OUT.png|OUT.svg", "a folder of per-rank snapshots as the window's rank overview (--view modules: its units side by side)"}}};
}

CommandSpec exportSpec()
{
    return {"export",
            "FILE|DIR",
            {{"parquet", K::Text, "OUT", "the dataset's folder: OUT/rank=R/step=S/input=x<hash>/<table>.parquet"},
             {"shard", K::Text, "I/N", "only the I-th of N equal shares of the sorted inputs"},
             {"prune", K::Flag, "", "drop the inputs OUT holds of dumps DIR no longer has (deleted, or unreadable now)"},
             kJson, kNoCache},
            {{"FILE|DIR --parquet OUT", "the snapshots as a Parquet dataset any query engine reads (DuckDB, Spark, Trino):\n"
                                        "OUT/rank=R/step=S/input=x<hash>/<table>.parquet; docs/fleet/ has the queries"}}};
}

CommandSpec watchSpec()
{
    return {"watch",
            "DIR",
            {{"json_lines", K::Flag, "", "one JSON object per line"},
             kPeakGrows,
             {"interval", K::Number, "SECONDS", "how often the folder is looked at"},
             kNoCache},
            {{"DIR", "one line per dump as a running job writes it (rank, step, peaks, change); exit 3\n"
                     "when a rank's peak grows more than PCT % over its first dump"}}};
}

CommandSpec estimateSpec()
{
    return {"estimate",
            "",
            {{"model", K::Text, "PRESET", "a model preset"},
             {"layers", K::Integer, "L", "transformer layers"},
             {"hidden", K::Integer, "H", "hidden size"},
             {"heads", K::Integer, "A", "attention heads"},
             {"vocab", K::Integer, "V", "vocabulary size"},
             {"kv_heads", K::Integer, "K", "key/value heads"},
             {"intermediate", K::Integer, "I", "MLP width"},
             {"mlp", K::Choice, "gelu|swiglu", "the MLP's kind", 0, 0, {"gelu", "swiglu"}},
             {"tied", K::Flag, "", "input and output embeddings shared"},
             {"mode", K::Choice, "train|inference", "training or inference", 0, 0, {"train", "inference"}},
             {"precision", K::Choice, "fp32|amp-bf16|bf16|fp16-amp", "weights' and activations' precision", 0, 0, {"fp32", "amp-bf16", "bf16", "fp16-amp"}},
             {"optimizer", K::Choice, "adamw|adamw8bit|sgd|adafactor|lion|none", "the optimizer", 0, 0, {"adamw", "adamw8bit", "sgd", "adafactor", "lion", "none"}},
             {"fused", K::Flag, "", "a fused optimizer step"},
             {"batch", K::Integer, "B", "micro-batch size"},
             {"seq", K::Integer, "S", "sequence length", 0, std::numeric_limits<int64_t>::max(), {}, true, {}, "length"},
             {"image_size", K::Integer, "N", "image side, for vision models", 0, std::numeric_limits<int64_t>::max(), {}, true, {}, "length"},
             {"new_tokens", K::Integer, "N", "tokens generated (inference)"},
             {"grad_accum", K::Integer, "N", "gradient accumulation steps"},
             {"checkpointing", K::Text, "none|selective|full|every:N", "activation checkpointing (every:N: every N-th layer, torchtitan's layer AC)"},
             {"attention", K::Choice, "sdpa|flash|eager", "the attention kernel", 0, 0, {"sdpa", "flash", "eager"}},
             {"norm", K::Choice, "python|fused", "RMSNorm as transformers' Python ops or one fused op (torch.nn.RMSNorm, torchtitan)", 0, 0, {"python", "fused"}},
             {"lora_r", K::Integer, "R", "LoRA rank"},
             {"lora_targets", K::Choice, "attention|q-v|all-linear", "the layers LoRA adapts (q-v: q_proj and v_proj, PEFT's default for Llama)", 0, 0, {"attention", "q-v", "all-linear"}},
             {"lora_dropout", K::Number, "P", "LoRA dropout"},
             {"qlora", K::Flag, "", "4-bit base weights"},
             {"zero", K::Integer, "0-3", "ZeRO stage", 0, 3},
             kGpus,
             {"offload_optimizer", K::Flag, "", "optimizer state in host memory"},
             kGpu,
             {"fit", K::Choice, "batch|seq", "the largest batch or sequence that fits", 0, 0, {"batch", "seq"}},
             kJson},
            {{"", "predicted peak memory of a training or inference setup"}}};
}

std::vector<CommandSpec> makeSpecs()
{
    return {summarySpec(), diffSpec(), adviseSpec(), replaySpec(), renderSpec(), exportSpec(), watchSpec(), estimateSpec()};
}

} // namespace

const CommandOption *CommandSpec::option(std::string_view optionName) const
{
    const auto it = std::find_if(options.begin(), options.end(), [&](const CommandOption &o) { return o.name == optionName; });
    return it == options.end() ? nullptr : &*it;
}

const std::vector<CommandSpec> &commandSpecs()
{
    static const std::vector<CommandSpec> specs = makeSpecs();
    return specs;
}

const CommandSpec &commandSpec(std::string_view name)
{
    for (const CommandSpec &s : commandSpecs()) {
        if (s.name == name)
            return s;
    }
    throw std::out_of_range("no command " + std::string(name));
}

std::string flagOf(std::string_view name)
{
    std::string flag(name.size() == 1 ? "-" : "--");
    for (char c : name)
        flag += c == '_' ? '-' : c;
    return flag;
}

namespace {

std::vector<std::string> optionsWhere(const CommandSpec &spec, bool valued, std::string_view form)
{
    std::vector<std::string> out;
    for (const CommandOption &o : spec.options) {
        if ((o.kind != OptionKind::Flag) == valued && (form.empty() || o.form.empty() || o.form == form))
            out.push_back(flagOf(o.name).substr(o.name.size() == 1 ? 1 : 2));
    }
    return out;
}

} // namespace

std::vector<std::string> valuedOptions(const CommandSpec &spec, std::string_view form)
{
    return optionsWhere(spec, true, form);
}

std::vector<std::string> flagOptions(const CommandSpec &spec, std::string_view form)
{
    return optionsWhere(spec, false, form);
}

namespace {

bool inForm(const CommandOption &option, const CommandForm &form)
{
    return option.form.empty() || form.operands == option.form || form.operands.starts_with(std::string(option.form) + " ");
}

// "--at peak|oom|end|EVENT", "--json"
std::string optionUsage(const CommandOption &option)
{
    return flagOf(option.name) + (option.kind == OptionKind::Flag ? "" : " " + std::string(option.value));
}

// The form's bracketed options in the table's order, a group's where its first member stands.
std::vector<std::string> bracketedOptions(const CommandSpec &spec, const CommandForm &form)
{
    std::vector<std::string> out;
    std::vector<std::string_view> groupsDone;
    for (const CommandOption &o : spec.options) {
        // An option the operands spell out ("--view VIEW") is not repeated.
        if (!inForm(o, form) || form.operands.find(flagOf(o.name) + " ") != std::string_view::npos)
            continue;
        if (o.group.empty()) {
            out.push_back("[" + optionUsage(o) + "]");
            continue;
        }
        if (std::find(groupsDone.begin(), groupsDone.end(), o.group) != groupsDone.end())
            continue;
        groupsDone.push_back(o.group);
        std::string alternatives;
        for (const CommandOption &member : spec.options) {
            if (member.group == o.group && inForm(member, form))
                alternatives += (alternatives.empty() ? "" : " | ") + optionUsage(member);
        }
        out.push_back("[" + alternatives + "]");
    }
    return out;
}

} // namespace

std::string commandUsage(const CommandSpec &spec, const CommandForm &form, size_t width)
{
    constexpr std::string_view kContinuation = "\n           ";
    std::string text = "memlens " + std::string(spec.name) + (form.operands.empty() ? "" : " " + std::string(form.operands));
    size_t lineStart = 0;
    for (const std::string &item : bracketedOptions(spec, form)) {
        if (text.size() - lineStart + 1 + item.size() > width) {
            text += kContinuation;
            lineStart = text.size() - (kContinuation.size() - 1);
            text += item;
        } else {
            text += " " + item;
        }
    }
    return text;
}

std::string usageLine(const CommandSpec &spec, std::string_view form)
{
    std::string text;
    for (const CommandForm &f : spec.forms) {
        if (f.operands.starts_with(form))
            text += (text.empty() ? "usage: " : "\n       ") + commandUsage(spec, f, std::string::npos);
    }
    return text;
}

std::string optionHelp(const CommandOption &option)
{
    return std::string(option.help) + (option.byDefault ? " (default " + std::to_string(*option.byDefault) + ")" : std::string());
}

nlohmann::json optionSchema(const CommandOption &option)
{
    nlohmann::json j;
    switch (option.kind) {
    case OptionKind::Flag: j = {{"type", "boolean"}}; break;
    case OptionKind::Integer:
        j = {{"type", "integer"}, {"minimum", option.min}};
        if (option.max != std::numeric_limits<int64_t>::max())
            j["maximum"] = option.max;
        break;
    case OptionKind::Number: j = {{"type", "number"}}; break;
    case OptionKind::Text: j = {{"type", "string"}}; break;
    case OptionKind::Moment:
        j = {{"oneOf", nlohmann::json::array({{{"type", "string"}, {"enum", {"peak", "oom", "end"}}}, {{"type", "integer"}, {"minimum", 0}}})}};
        break;
    case OptionKind::Choice: j = {{"type", "string"}, {"enum", option.choices}}; break;
    }
    j["description"] = optionHelp(option);
    if (option.byDefault)
        j["default"] = *option.byDefault;
    return j;
}

} // namespace memlens
