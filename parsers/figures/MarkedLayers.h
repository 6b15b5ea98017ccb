#pragma once
// The layers a framework marks itself: the units (FSDP's hooks, Megatron's module-path
// record_functions) whose names hold a layer index — FSDP2's `layers.3`, Megatron's
// `decoder.layers.3.mlp` — are the model's layers, where the marks are there. The indexed list
// with the most entries is the layer stack (not `experts.0`, held inside one layer); a layer's
// forward in a pass runs from the first of its units' forward marks to the end of the last, and
// a pass is the layers run in rising order. Marks run again by a checkpoint's recompute lie in
// backward and are not a pass.
#include "figures/ModelLayers.h"
#include "figures/ModuleUnits.h"
#include "figures/StepParts.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct MarkedLayers {
    std::string stack;  // the units' name up to the index ("layers", "decoder.layers")
    uint32_t count = 0; // layers per forward pass
    std::vector<LayerWindow> windows;
};

// Nothing when the units name fewer than two layers of one stack, or no forward pass ran them all.
std::optional<MarkedLayers> layersFromUnits(const DeviceIndex &index, const StepParts &parts, const ModuleUnits &units);

} // namespace memlens
