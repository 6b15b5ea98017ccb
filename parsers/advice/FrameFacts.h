#pragma once
// What a snapshot's frames say of the run, over every distinct frame (a handful of thousands at
// most): the model family by its source file, checkpointing, autocast, Python at all, and the
// parallelism by the files that run it. torch's, transformers' and DeepSpeed's own paths, never a
// name the user chose.
#include "advice/SetupInference.h"

#include <optional>
#include <string>

namespace memlens {

struct FrameFacts {
    std::optional<ModelFamily> family;
    std::string familyFile;
    bool checkpoint = false;
    bool autocast = false;
    bool python = false;
    Parallelism parallelism;
    std::string parallelismFile;
};

FrameFacts frameFacts(const Snapshot &snapshot);

} // namespace memlens
