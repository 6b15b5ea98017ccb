#include "report/RunDiff.h"

#include "model/ByteFormat.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

namespace memlens {

namespace {

std::string signedBytes(int64_t change)
{
    if (change == 0)
        return "0 B";
    return (change > 0 ? "+" : "-") + formatBytes(static_cast<uint64_t>(std::llabs(change)));
}

std::string percentText(uint64_t before, uint64_t after)
{
    const double p = growthPercent(before, after);
    if (std::isinf(p))
        return "new";
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << (p > 0 ? "+" : "") << p << " %";
    return out.str();
}

// Markdown table cells must not contain a bare "|".
std::string cell(const std::string &text)
{
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c != '\n')
            out += c;
    }
    return out;
}

} // namespace

RunDiff diffRuns(const IndexedDevice &a, const IndexedDevice &b, const Moment &at)
{
    RunDiff d{a.file, b.file, at, {}, {}, {}};
    const TracePoint ea = pointOf(*a.index, at), eb = pointOf(*b.index, at);
    for (auto [run, device, e] : {std::tuple{&d.a, &a, ea}, std::tuple{&d.b, &b, eb}}) {
        const DeviceSummary &s = device->figures->summary;
        run->peakActiveBytes = s.peakActiveBytes;
        run->peakReservedBytes = s.peakReservedBytes;
        run->liveAtPoint = device->index->activeAt(e);
        run->categoryBytesAtPeak = s.categoryBytesAtPeak;
    }
    d.sites = diffBySite(*a.snapshot, *a.index, ea, *b.snapshot, *b.index, eb);
    return d;
}

DiffGate diffGate(const RunDiff &diff, const DiffLimits &limits)
{
    DiffGate g;
    g.peakGrowth = growthPercent(diff.a.peakActiveBytes, diff.b.peakActiveBytes);
    g.reservedGrowth = growthPercent(diff.a.peakReservedBytes, diff.b.peakReservedBytes);
    g.peakOver = limits.peakGrowsPercent && g.peakGrowth > *limits.peakGrowsPercent;
    g.reservedOver = limits.reservedGrowsPercent && g.reservedGrowth > *limits.reservedGrowsPercent;
    return g;
}

nlohmann::json gateJson(const DiffGate &gate)
{
    return {{"peak_active_growth_percent", gate.peakGrowth}, {"peak_reserved_growth_percent", gate.reservedGrowth}, {"passed", gate.passed()}};
}

double growthPercent(uint64_t before, uint64_t after)
{
    if (before == 0)
        return after == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return (static_cast<double>(after) - static_cast<double>(before)) / static_cast<double>(before) * 100.0;
}

std::string diffMarkdown(const RunDiff &d, size_t topSites)
{
    std::ostringstream out;
    const auto name = [](const std::string &path) { return std::filesystem::path(path).filename().string(); };
    out << "### GPU memory: `" << cell(name(d.nameB)) << "` against `" << cell(name(d.nameA)) << "`\n\n";
    out << "| | A | B | change |\n|---|---:|---:|---:|\n";
    auto row = [&](const std::string &what, uint64_t a, uint64_t b) {
        out << "| " << what << " | " << formatBytes(a) << " | " << formatBytes(b) << " | "
            << signedBytes(static_cast<int64_t>(b) - static_cast<int64_t>(a)) << " (" << percentText(a, b) << ") |\n";
    };
    row("Peak active", d.a.peakActiveBytes, d.b.peakActiveBytes);
    row("Peak reserved", d.a.peakReservedBytes, d.b.peakReservedBytes);
    row("Live at " + d.at.text(), d.a.liveAtPoint, d.b.liveAtPoint);
    out << "\n**By category at each run's peak**\n\n| category | A | B | change |\n|---|---:|---:|---:|\n";
    for (int c = 0; c < kCategoryCount; ++c) {
        const uint64_t a = d.a.categoryBytesAtPeak[static_cast<size_t>(c)], b = d.b.categoryBytesAtPeak[static_cast<size_t>(c)];
        if (a || b)
            row(std::string(categoryName(static_cast<Category>(c))), a, b);
    }
    out << "\n**Largest changes by call site (live at " << d.at.text() << ")**\n\n";
    if (d.sites.empty()) {
        out << "No differences by call site.\n";
        return out.str();
    }
    out << "| call site | A | B | change |\n|---|---:|---:|---:|\n";
    for (size_t i = 0; i < d.sites.size() && i < topSites; ++i) {
        const SiteDiff &s = d.sites[i];
        out << "| `" << cell(s.site) << "` | " << formatBytes(static_cast<uint64_t>(s.bytesA)) << " | "
            << formatBytes(static_cast<uint64_t>(s.bytesB)) << " | " << signedBytes(s.change()) << " |\n";
    }
    if (d.sites.size() > topSites)
        out << "\n" << d.sites.size() - topSites << " more call sites differ.\n";
    return out.str();
}

nlohmann::json diffJson(const RunDiff &d, int device, size_t topSites)
{
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < d.sites.size() && i < topSites; ++i)
        list.push_back({{"site", d.sites[i].site}, {"bytes_a", d.sites[i].bytesA}, {"bytes_b", d.sites[i].bytesB}, {"change", d.sites[i].change()}});
    nlohmann::json categories = nlohmann::json::object();
    for (int c = 0; c < kCategoryCount; ++c)
        categories[std::string(categoryName(static_cast<Category>(c)))] = {{"a", d.a.categoryBytesAtPeak[static_cast<size_t>(c)]},
                                                                            {"b", d.b.categoryBytesAtPeak[static_cast<size_t>(c)]}};
    return {{"a", d.nameA},
            {"b", d.nameB},
            {"device", device},
            {"at", d.at.text()},
            {"total_a", d.a.liveAtPoint},
            {"total_b", d.b.liveAtPoint},
            {"change", int64_t(d.b.liveAtPoint) - int64_t(d.a.liveAtPoint)},
            {"peak_active_a", d.a.peakActiveBytes},
            {"peak_active_b", d.b.peakActiveBytes},
            {"peak_reserved_a", d.a.peakReservedBytes},
            {"peak_reserved_b", d.b.peakReservedBytes},
            {"category_bytes_at_peak", categories},
            {"differing_sites", d.sites.size()},
            {"sites", list}};
}

} // namespace memlens
