#include "advice/FrameFacts.h"

#include <algorithm>

namespace memlens {

namespace {

bool hasPart(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

// Frames that show a distributed run, and the sharding stage each implies.
void noteParallelism(std::string_view file, FrameFacts &f)
{
    static const std::pair<std::string_view, int> kSharding[] = {
        {"torch/distributed/fsdp/", 3}, {"torch/distributed/_composable/fsdp/", 3}, {"deepspeed/runtime/zero/stage3.py", 3},
        {"deepspeed/runtime/zero/stage_1_and_2.py", 1}, {"torch/nn/parallel/distributed.py", 0}, {"torch/distributed/distributed_c10d.py", 0},
    };
    for (const auto &[part, stage] : kSharding) {
        if (hasPart(file, part) && (!f.parallelism.distributed || stage > f.parallelism.shardingStage)) {
            f.parallelism = {true, stage};
            f.parallelismFile = std::string(file.substr(file.find(part)));
        }
    }
}

} // namespace

FrameFacts frameFacts(const Snapshot &s)
{
    static const std::pair<std::string_view, ModelFamily> kFamilies[] = {
        {"models/gpt2/", ModelFamily::Gpt2},        {"models/llama/", ModelFamily::Llama},  {"models/mistral/", ModelFamily::Llama},
        {"models/qwen2/", ModelFamily::Llama},      {"models/gemma", ModelFamily::Llama},   {"models/phi3/", ModelFamily::Llama},
        {"models/bert/", ModelFamily::Bert},        {"torchvision/models/resnet.py", ModelFamily::ResNet50},
        {"torchvision/models/vision_transformer.py", ModelFamily::Vit},
    };
    // Profiler traces recorded without with_stack name operators only: a convolution among them
    // is a convolutional network, which the estimator prices as its one, ResNet-50. A model's
    // own file says more (a ViT embeds its patches with a convolution too).
    static const std::string_view kConvolutions[] = {"aten::convolution", "aten::cudnn_convolution", "aten::conv2d"};
    std::string_view convolution;
    FrameFacts f;
    for (size_t i = 0; i < s.frames.size(); ++i) {
        const Frame &frame = s.frames.at(FrameId(static_cast<uint32_t>(i)));
        const std::string_view file = s.strings.at(frame.file);
        if (file == "<cpu_op>" && std::find(std::begin(kConvolutions), std::end(kConvolutions), s.strings.at(frame.name)) != std::end(kConvolutions))
            convolution = s.strings.at(frame.name);
        f.python = f.python || file.ends_with(".py");
        f.checkpoint = f.checkpoint || hasPart(file, "torch/utils/checkpoint.py");
        f.autocast = f.autocast || hasPart(file, "torch/amp/autocast_mode.py");
        noteParallelism(file, f);
        for (const auto &[part, family] : kFamilies) {
            if (!f.family && hasPart(file, part)) {
                f.family = family;
                f.familyFile = std::string(file.substr(file.find(part)));
            }
        }
    }
    if (!f.family && !convolution.empty()) {
        f.family = ModelFamily::ResNet50;
        f.familyFile = std::string(convolution) + " among the trace's operators";
    }
    return f;
}

} // namespace memlens
