#include "watch/WatchLog.h"

#include "model/ByteFormat.h"
#include "report/OptionalJson.h"
#include "report/JsonText.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace memlens {

namespace {

std::optional<double> percentChange(uint64_t from, uint64_t to)
{
    if (from == 0)
        return std::nullopt;
    return (static_cast<double>(to) - static_cast<double>(from)) * 100.0 / static_cast<double>(from);
}

std::string percentText(double percent)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", percent);
    return text;
}

} // namespace

WatchLine RankPeakHistory::add(const RankFigures &figures)
{
    WatchLine line{figures, std::nullopt, std::nullopt, std::nullopt};
    const auto [it, first] = ranks_.try_emplace(figures.file.rank);
    Peaks &p = it->second;
    if (first) {
        p.first = figures.peakActiveBytes;
    } else {
        line.previousStep = p.previousStep;
        line.changePercent = percentChange(p.previous, figures.peakActiveBytes);
        line.growthPercent = percentChange(p.first, figures.peakActiveBytes);
    }
    p.previous = figures.peakActiveBytes;
    p.previousStep = figures.file.step;
    return line;
}

std::string watchLineText(const WatchLine &line)
{
    const RankFigures &f = line.figures;
    std::string text = "rank " + std::to_string(f.file.rank);
    text += f.file.step ? " step " + std::to_string(*f.file.step) : std::string(" (no step in the name)");
    text += ": peak " + formatBytes(f.peakActiveBytes) + " active, " + formatBytes(f.peakReservedBytes) + " reserved";
    if (line.changePercent) {
        text += " (" + percentText(*line.changePercent) + " since " +
                (line.previousStep ? "step " + std::to_string(*line.previousStep) : std::string("the previous dump"));
        if (line.growthPercent)
            text += ", " + percentText(*line.growthPercent) + " since the first";
        text += ")";
    }
    if (f.oomEntries)
        text += ", out of memory";
    return text + "  " + f.file.path;
}

std::string watchLineJson(const WatchLine &line)
{
    const RankFigures &f = line.figures;
    return jsonText(nlohmann::json{{"file", f.file.path},
                          {"rank", f.file.rank},
                          {"step", optionalJson(f.file.step)},
                          {"device", f.device},
                          {"peak_active_bytes", f.peakActiveBytes},
                          {"peak_reserved_bytes", f.peakReservedBytes},
                          {"oom_entries", f.oomEntries},
                          {"previous_step", optionalJson(line.previousStep)},
                          {"change_percent", optionalJson(line.changePercent)},
                          {"growth_percent", optionalJson(line.growthPercent)}});
}

bool peakGrewPast(const WatchLine &line, double percent)
{
    return line.growthPercent && *line.growthPercent > percent;
}

} // namespace memlens
