#pragma once
// What each layer of a model does to memory in a forward pass and in its backward (Megatron-LM's
// per-layer report, from a snapshot): the window's peak, the bytes it keeps past its window, the
// bytes it needs only for a moment, its largest allocation, and what of it is still live at the
// run's peak. A layer's backward is where the bytes its forward kept are freed: from the end of
// the backward of the layer after it (backward runs the layers in reverse) to the last free of
// what its forward kept.
#include "figures/ModelLayers.h"
#include "figures/StepParts.h"
#include "index/DeviceIndex.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct LayerPassFigures {
    uint32_t layer = 0;
    EventId first;               // the window's first entry
    EventId end;                 // the entry after its last
    uint64_t peakBytes = 0;      // the most bytes active inside the window (the device's, all of them)
    uint64_t retainedBytes = 0;  // made in the window, alive at its end, freed later: kept for backward
    uint64_t unfreedBytes = 0;   // made in the window and never freed in the trace (a library's
                                 // workspace made by the first layer; a trace that ends before backward)
    uint64_t transientBytes = 0; // made and freed inside the window, at their highest
    uint64_t largestBytes = 0;   // its largest allocation
    uint64_t atPeakBytes = 0;    // made in the window and live at the run's peak
};

struct LayersSummary {
    LayerSource source = LayerSource::Stacks;
    FrameId loop;            // from the stacks: the line that calls each layer
    std::string markedStack; // from marks: the units' name up to the index
    uint32_t pass = 0; // the forward pass described: the last to begin at or before the peak
    std::vector<LayerPassFigures> forward;  // by layer
    std::vector<LayerPassFigures> backward; // by layer, those whose backward the trace holds (none
                                            // when it ends before backward: an OOM in forward)
};

// Nothing when the run shows no layers.
std::optional<LayersSummary> summarizeLayers(const DeviceIndex &index, const StepParts &parts, const ModelLayers &layers);

// Where the layers were found, as the text and the window say it: "the loop at model.py:470:forward,
// from the stacks", "the units layers.N, from FSDP's marks".
std::string layersOrigin(const Snapshot &snapshot, const LayersSummary &layers);
// The layers' name in `layer_loop`: the loop's frame, or the units' ("layers.N").
std::string layerLoopName(const Snapshot &snapshot, const LayersSummary &layers);

} // namespace memlens
