#pragma once
// A device's layers in `summary --json`: `layers_from` ("stacks", or null), `layer_loop` (the
// line that calls each layer) and `layers`, each layer's forward in the pass described.
#include "figures/SnapshotSummary.h"

#include <nlohmann/json.hpp>

namespace memlens {

void addLayersJson(nlohmann::json &device, const Snapshot &snapshot, const DeviceSummary &summary);

} // namespace memlens
