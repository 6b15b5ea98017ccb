#include "figures/MarkedLayers.h"

#include <algorithm>
#include <map>

namespace memlens {

namespace {

// A unit's layer: the name up to its first index component, and the index ("decoder.layers.3.mlp"
// → "decoder.layers", 3); nothing for a unit with no index ("norm", "(root)").
std::optional<std::pair<std::string, uint32_t>> layerOf(const std::string &unit)
{
    size_t from = 0;
    while (from < unit.size()) {
        const size_t dot = std::min(unit.find('.', from), unit.size());
        const std::string_view part = std::string_view(unit).substr(from, dot - from);
        if (from > 0 && !part.empty() && part.size() < 9 && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::make_pair(unit.substr(0, from - 1), static_cast<uint32_t>(std::stoul(std::string(part))));
        from = dot + 1;
    }
    return std::nullopt;
}

struct Run {
    int64_t startUs;
    int64_t endUs;
    uint32_t layer; // the index the units name
};

// The first entry at or after `us` (times rise with the entries).
uint32_t entryAt(const EventTable &events, int64_t us)
{
    uint32_t lo = 0, hi = static_cast<uint32_t>(events.count());
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (events.timeUs[mid] < us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

} // namespace

std::optional<MarkedLayers> layersFromUnits(const DeviceIndex &index, const StepParts &parts, const ModuleUnits &units)
{
    // The stack: the indexed name with the most distinct indices.
    std::vector<std::optional<std::pair<std::string, uint32_t>>> layerOfUnit;
    std::map<std::string, std::vector<uint32_t>> indices;
    for (const std::string &name : units.names()) {
        layerOfUnit.push_back(layerOf(name));
        if (layerOfUnit.back())
            indices[layerOfUnit.back()->first].push_back(layerOfUnit.back()->second);
    }
    MarkedLayers out;
    size_t most = 0;
    for (auto &[stack, list] : indices) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        if (list.size() > most)
            most = list.size(), out.stack = stack;
    }
    if (most < 2)
        return std::nullopt;
    out.count = static_cast<uint32_t>(most);

    // Each layer's forward: its units' forward spans that begin in the forward part, the spans of
    // one layer that follow each other joined.
    const EventTable &events = index.events();
    std::vector<Run> runs;
    for (const UnitSpan &span : units.spans()) {
        const auto &layer = layerOfUnit[span.unit];
        if (span.backward || !layer || layer->first != out.stack)
            continue;
        const uint32_t first = entryAt(events, span.startUs);
        if (first >= events.count() || parts.at(TracePoint::after(EventId(first))) != StepPart::Forward)
            continue;
        if (!runs.empty() && runs.back().layer == layer->second && span.startUs >= runs.back().startUs)
            runs.back().endUs = std::max(runs.back().endUs, span.endUs);
        else
            runs.push_back({span.startUs, span.endUs, layer->second});
    }
    // Passes: the layers in rising order; a pass that did not run every layer (cut by the trace's
    // start or end) is left out.
    uint32_t pass = 0;
    size_t begin = 0;
    auto close = [&](size_t end) {
        if (end - begin == out.count) {
            for (size_t k = begin; k < end; ++k) {
                const uint32_t last = runs[k].endUs == INT64_MAX ? events.count() : entryAt(events, runs[k].endUs + 1);
                out.windows.push_back({pass, static_cast<uint32_t>(k - begin), EventId(entryAt(events, runs[k].startUs)), EventId(last)});
            }
        }
        ++pass;
        begin = end;
    };
    for (size_t k = 1; k <= runs.size(); ++k) {
        if (k == runs.size() || runs[k].layer <= runs[k - 1].layer)
            close(k);
    }
    if (out.windows.empty())
        return std::nullopt;
    return out;
}

} // namespace memlens
