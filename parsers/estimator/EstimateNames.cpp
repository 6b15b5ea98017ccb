// The estimator's settings by name, as the command line and the window write them.
#include "estimator/MemoryEstimator.h"

#include "model/EnumNames.h"

#include <algorithm>

namespace memlens {

namespace {
constexpr EnumNames<Precision, 4> kPrecisionNames{
    {{{Precision::Fp32, "fp32"}, {Precision::AmpBf16, "amp-bf16"}, {Precision::Bf16, "bf16"}, {Precision::Fp16Amp, "fp16-amp"}}}};
constexpr EnumNames<Optimizer, 6> kOptimizerNames{{{{Optimizer::AdamW, "adamw"},
                                                    {Optimizer::AdamW8bit, "adamw8bit"},
                                                    {Optimizer::Sgd, "sgd"},
                                                    {Optimizer::Adafactor, "adafactor"},
                                                    {Optimizer::Lion, "lion"},
                                                    {Optimizer::None, "none"}}}};
constexpr EnumNames<Checkpointing, 3> kCheckpointingNames{
    {{{Checkpointing::None, "none"}, {Checkpointing::Selective, "selective"}, {Checkpointing::Full, "full"}}}};
constexpr std::string_view kEveryPrefix = "every:";
constexpr EnumNames<Attention, 3> kAttentionNames{{{{Attention::Sdpa, "sdpa"}, {Attention::Flash, "flash"}, {Attention::Eager, "eager"}}}};

template <typename Enum, size_t N>
bool parseName(const EnumNames<Enum, N> &names, const std::string &s, Enum &out)
{
    const auto value = names.find(s);
    if (value)
        out = *value;
    return value.has_value();
}
} // namespace

std::string precisionName(Precision p)
{
    return std::string(kPrecisionNames.name(p));
}

std::string optimizerName(Optimizer o)
{
    return std::string(kOptimizerNames.name(o));
}

std::string checkpointingName(const EstimateInput &in)
{
    if (in.checkpointing == Checkpointing::EveryN)
        return std::string(kEveryPrefix) + std::to_string(in.checkpointEvery);
    return std::string(kCheckpointingNames.name(in.checkpointing));
}

std::string attentionName(Attention a)
{
    return std::string(kAttentionNames.name(a));
}

bool parsePrecision(const std::string &s, Precision &out)
{
    return parseName(kPrecisionNames, s, out);
}

bool parseOptimizer(const std::string &s, Optimizer &out)
{
    return parseName(kOptimizerNames, s, out);
}

bool parseCheckpointing(const std::string &s, EstimateInput &in)
{
    if (s.starts_with(kEveryPrefix)) {
        const std::string n = s.substr(kEveryPrefix.size());
        if (n.empty() || n.size() > 4 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }) || std::stoi(n) < 1)
            return false;
        in.checkpointing = Checkpointing::EveryN;
        in.checkpointEvery = std::stoi(n);
        return true;
    }
    in.checkpointEvery = 0;
    return parseName(kCheckpointingNames, s, in.checkpointing);
}

bool parseAttention(const std::string &s, Attention &out)
{
    return parseName(kAttentionNames, s, out);
}

} // namespace memlens
