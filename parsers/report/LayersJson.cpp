#include "report/LayersJson.h"

#include "report/OptionalJson.h"

namespace memlens {

void addLayersJson(nlohmann::json &device, const Snapshot &snapshot, const DeviceSummary &summary)
{
    using nlohmann::json;
    const std::optional<LayersSummary> &l = summary.layers;
    device["layers_from"] = l ? json(kLayerSourceNames.name(l->source)) : json(nullptr);
    device["layer_loop"] = l ? json(layerLoopName(snapshot, *l)) : json(nullptr);
    json layers = json::array();
    auto add = [&](const LayerPassFigures &f, const char *pass) {
        layers.push_back({{"layer", f.layer},
                          {"pass", pass},
                          {"forward_pass", l->pass},
                          {"first_index", f.first},
                          {"end_index", f.end},
                          {"peak_bytes", f.peakBytes},
                          {"retained_bytes", f.retainedBytes},
                          {"unfreed_bytes", f.unfreedBytes},
                          {"transient_bytes", f.transientBytes},
                          {"largest_bytes", f.largestBytes},
                          {"at_peak_bytes", f.atPeakBytes}});
    };
    if (l) {
        for (const LayerPassFigures &f : l->forward)
            add(f, "forward");
        for (const LayerPassFigures &f : l->backward)
            add(f, "backward");
    }
    device["layers"] = std::move(layers);
}

} // namespace memlens
