#include "cli/EstimateCommand.h"

#include "options/CommandLine.h"
#include "estimator/EstimateReport.h"

#include <cstdlib>
#include <iostream>

namespace memlens {

namespace {

int positive(const CommandLine &cl, const std::string &name, int fallback)
{
    const auto v = cl.integer(name);
    if (v && (*v < 1 || *v > 100'000'000))
        throw std::invalid_argument("--" + name + " must be between 1 and 100000000");
    return v ? static_cast<int>(*v) : fallback;
}

std::string presetList()
{
    std::string names;
    for (const ModelShape &m : modelPresets())
        names += (names.empty() ? "" : ", ") + m.name;
    return names;
}

} // namespace

int runEstimateCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("estimate"));
        if (!cl.positional().empty())
            throw std::invalid_argument("unexpected argument '" + cl.positional().front() + "'");
        EstimateInput in;
        if (auto name = cl.value("model")) {
            auto preset = findModel(*name);
            if (!preset)
                throw std::invalid_argument("unknown --model " + *name + " (presets: " + presetList() + ")");
            in.model = *preset;
        } else {
            if (!cl.value("layers") || !cl.value("hidden") || !cl.value("heads") || !cl.value("vocab"))
                throw std::invalid_argument("give --model PRESET, or --layers, --hidden, --heads and --vocab");
            in.model.name = "custom";
            in.model.family = cl.value("mlp").value_or("swiglu") == "gelu" ? ModelFamily::Gpt2 : ModelFamily::Llama;
        }
        ModelShape &m = in.model;
        m.layers = positive(cl, "layers", m.layers);
        m.hidden = positive(cl, "hidden", m.hidden);
        m.heads = positive(cl, "heads", m.heads);
        m.kvHeads = positive(cl, "kv-heads", m.kvHeads ? m.kvHeads : m.heads);
        m.intermediate = positive(cl, "intermediate", m.intermediate ? m.intermediate : 4 * m.hidden);
        m.vocab = positive(cl, "vocab", m.vocab);
        if (cl.flag("tied"))
            m.tiedEmbeddings = true;
        if (m.name == "custom" && m.family == ModelFamily::Gpt2)
            m.positions = 1024, m.qkvBias = true, m.tiedEmbeddings = true;

        const std::string mode = cl.value("mode").value_or("train");
        if (mode != "train" && mode != "inference")
            throw std::invalid_argument("--mode takes train or inference");
        in.inference = mode == "inference";
        if (auto v = cl.value("precision"); v && !parsePrecision(*v, in.precision))
            throw std::invalid_argument("--precision takes fp32, amp-bf16, bf16 or fp16-amp");
        if (auto v = cl.value("optimizer"); v && !parseOptimizer(*v, in.optimizer))
            throw std::invalid_argument("--optimizer takes adamw, adamw8bit, sgd, adafactor, lion or none");
        if (in.inference)
            in.optimizer = Optimizer::None;
        if (auto v = cl.value("checkpointing"); v && !parseCheckpointing(*v, in))
            throw std::invalid_argument("--checkpointing " + *v + ": takes none, selective, full or every:N (every N-th layer)");
        if (auto v = cl.value("attention"); v && !parseAttention(*v, in.attention))
            throw std::invalid_argument("--attention takes sdpa, flash or eager");
        in.fusedNorm = cl.value("norm") == std::optional<std::string>("fused");
        in.batch = positive(cl, "batch", 1);
        in.seq = positive(cl, "image-size", positive(cl, "seq", m.isImage() ? 224 : 512));
        in.newTokens = static_cast<int>(cl.integer("new-tokens").value_or(in.inference ? 128 : 0));
        in.gradAccumulation = positive(cl, "grad-accum", 1);
        in.loraRank = static_cast<int>(cl.integer("lora-r").value_or(0));
        const std::optional<LoraTargets> targets = kLoraTargetNames.find(cl.value("lora-targets").value_or("attention"));
        if (!targets)
            throw std::invalid_argument("--lora-targets takes attention, q-v or all-linear");
        in.loraTargets = *targets;
        in.qlora = cl.flag("qlora");
        if (auto v = cl.value("lora-dropout")) {
            char *end = nullptr;
            in.loraDropout = std::strtod(v->c_str(), &end);
            if (end == v->c_str() || *end || !(in.loraDropout >= 0 && in.loraDropout < 1))
                throw std::invalid_argument("--lora-dropout takes a probability in [0, 1)");
        }
        in.fusedOptimizer = cl.flag("fused");
        in.offloadOptimizer = cl.flag("offload-optimizer");
        in.zeroStage = static_cast<int>(cl.integer("zero").value_or(0));
        if (in.zeroStage > 3)
            throw std::invalid_argument("--zero takes 0, 1, 2 or 3");
        in.gpus = positive(cl, "gpus", 1);
        if (auto gpu = cl.value("gpu")) {
            auto preset = findGpu(*gpu);
            if (!preset) {
                std::string names;
                for (const GpuPreset &g : gpuPresets())
                    names += (names.empty() ? "" : ", ") + g.name;
                throw std::invalid_argument("unknown --gpu " + *gpu + " (presets: " + names + ")");
            }
            in.gpuBytes = preset->bytes;
        }
        std::optional<FitAnswer> fit;
        if (auto what = cl.value("fit")) {
            if (*what != "batch" && *what != "seq")
                throw std::invalid_argument("--fit takes batch or seq");
            if (!in.gpuBytes)
                throw std::invalid_argument("--fit needs --gpu");
            fit = FitAnswer{*what, *what == "batch" ? largestBatch(in) : longestSequence(in)};
        }
        const EstimateResult r = estimate(in);
        std::cout << (cl.flag("json") ? estimateJson(in, r, fit) : estimateText(in, r, fit));
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens estimate: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
