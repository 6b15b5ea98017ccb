#include "ranks/RankSummary.h"

#include "index/DeviceIndex.h"
#include "figures/DeviceFigures.h"
#include "model/ByteFormat.h"
#include "cache/CachedSnapshot.h"
#include "report/OptionalJson.h"
#include "report/SummaryReport.h"
#include "report/JsonText.h"
#include "ranks/RankUnits.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace memlens {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A JSON summary larger than this is not one memlens wrote for a single snapshot.
constexpr uintmax_t kMaxSummaryFileBytes = 64ull << 20;

} // namespace

std::optional<RankFigures> readSummaryFile(const RankFile &file)
{
    const std::string summaryPath = file.path + ".summary.json";
    std::error_code ec;
    const auto summaryTime = fs::last_write_time(summaryPath, ec);
    if (ec)
        return std::nullopt;
    const auto snapshotTime = fs::last_write_time(file.path, ec);
    if (ec || summaryTime <= snapshotTime || fs::file_size(summaryPath, ec) > kMaxSummaryFileBytes || ec)
        return std::nullopt;
    std::ifstream in(summaryPath, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parseSummaryFile(text.substr(0, kMaxSummaryFileBytes), file); // the file may have grown meanwhile
}

std::optional<RankFigures> parseSummaryFile(std::string_view text, const RankFile &file)
{
    const std::optional<SummaryFile> summary = readSummaryJson(text);
    if (!summary || fs::path(summary->file).filename() != fs::path(file.path).filename())
        return std::nullopt; // not a summary of this snapshot: the snapshot is read instead
    RankFigures best{file};
    best.fromSummaryFile = true;
    bool any = false;
    for (const SummaryFileDevice &d : summary->devices) {
        if (any && d.peakActiveBytes <= best.peakActiveBytes)
            continue;
        best.device = d.device;
        best.peakActiveBytes = d.peakActiveBytes;
        best.peakReservedBytes = d.peakReservedBytes;
        best.oomEntries = d.oomEntries;
        best.categoryBytesAtPeak = d.categoryBytesAtPeak;
        best.unitsFrom = d.unitsFrom;
        best.unitsAtPeak = d.unitsAtPeak;
        any = true;
    }
    return best;
}

void keepBusiestDevice(RankFigures &figures, bool first, int device, uint64_t peakActiveBytes, uint64_t peakReservedBytes, size_t oomEntries,
                       const std::array<uint64_t, kCategoryCount> &categoryBytesAtPeak, UnitSource unitsFrom, std::vector<UnitBytes> unitsAtPeak)
{
    if (!first && peakActiveBytes <= figures.peakActiveBytes)
        return;
    figures.device = device;
    figures.peakActiveBytes = peakActiveBytes;
    figures.peakReservedBytes = peakReservedBytes;
    figures.oomEntries = oomEntries;
    figures.categoryBytesAtPeak = categoryBytesAtPeak;
    figures.unitsFrom = unitsFrom;
    figures.unitsAtPeak = std::move(unitsAtPeak);
}

RankFigures summarizeRank(const RankFile &file, const SnapshotCache *cache)
{
    if (auto fromFile = readSummaryFile(file))
        return *fromFile;
    RankFigures best{file};
    try {
        const CachedSnapshot loaded = loadSnapshotCached(file.path, {}, cache);
        bool any = false;
        for (int d : loaded.snapshot->devices()) {
            const DeviceIndex index(*loaded.snapshot, d);
            const DeviceSummary s = assembleDeviceFigures(*loaded.snapshot, index, 0).summary;
            keepBusiestDevice(best, !any, d, s.peakActiveBytes, s.peakReservedBytes, s.ooms.size(), s.categoryBytesAtPeak,
                              s.units ? s.units->source() : UnitSource::None, s.unitsAtPeak);
            any = true;
        }
        if (!any)
            best.error = file.path + ": no device has segments or trace entries";
    } catch (const std::exception &e) {
        best = RankFigures{file};
        best.error = e.what();
    }
    return best;
}

std::vector<RankFigures> summarizeRanks(const std::vector<RankFile> &files, unsigned threads, const SnapshotCache *cache,
                                        const RankProgress &control)
{
    std::vector<RankFigures> out(files.size());
    std::atomic<size_t> next{0}, done{0};
    auto work = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            if (control.cancel && control.cancel->load())
                return;
            out[i] = summarizeRank(files[i], cache);
            const size_t finished = ++done;
            if (control.progress)
                control.progress(finished, files.size());
        }
    };
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, files.size()))));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    return out;
}

namespace {

bool alike(uint64_t a, uint64_t b)
{
    return static_cast<double>(a > b ? a - b : b - a) <= RankComparison::kOutlierShare * static_cast<double>(std::max(a, b));
}

// Ranks of one job mostly peak alike: the peak most ranks share (within kOutlierShare) is the
// typical one, and a rank off it is an outlier. A median between two groups is nobody's peak
// (3.37, 8.07, 8.07 GiB and 61 MiB outlined all four, the two at the maximum included); with no
// peak shared by more ranks than any other (two ranks, two groups of two) nobody is the odd one.
std::vector<size_t> peakOutliers(const std::vector<RankFigures> &ranks)
{
    std::vector<size_t> readable;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (ranks[i].error.empty())
            readable.push_back(i);
    }
    if (readable.size() < RankComparison::kMinRanksForOutliers)
        return {};
    auto sharing = [&](size_t i) {
        return std::count_if(readable.begin(), readable.end(), [&](size_t j) { return alike(ranks[i].peakActiveBytes, ranks[j].peakActiveBytes); });
    };
    size_t typical = readable.front();
    std::ptrdiff_t most = 0;
    bool tied = false;
    for (size_t i : readable) {
        const std::ptrdiff_t count = sharing(i);
        if (count > most) {
            most = count;
            typical = i;
            tied = false;
        } else if (count == most && !alike(ranks[i].peakActiveBytes, ranks[typical].peakActiveBytes)) {
            tied = true;
        }
    }
    std::vector<size_t> outliers;
    for (size_t i : readable) {
        if (!tied && most > 1 && !alike(ranks[i].peakActiveBytes, ranks[typical].peakActiveBytes))
            outliers.push_back(i);
    }
    return outliers;
}

} // namespace

RankComparison compareRanks(const std::vector<RankFigures> &ranks)
{
    RankComparison c;
    std::vector<uint64_t> peaks;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (!ranks[i].error.empty())
            continue;
        peaks.push_back(ranks[i].peakActiveBytes);
        if (ranks[i].oomEntries > 0)
            c.oomRanks.push_back(i);
    }
    if (peaks.empty())
        return c;
    std::sort(peaks.begin(), peaks.end());
    const size_t n = peaks.size();
    c.medianPeak = n % 2 ? static_cast<double>(peaks[n / 2]) : (static_cast<double>(peaks[n / 2 - 1]) + static_cast<double>(peaks[n / 2])) / 2;
    c.imbalance = c.medianPeak > 0 ? static_cast<double>(peaks.back()) / c.medianPeak : 0;
    c.outliers = peakOutliers(ranks);
    return c;
}

std::string rankOverviewJson(const RankFolder &folder, const std::optional<int64_t> &step, const std::vector<RankFigures> &ranks)
{
    return jsonText(rankOverviewJsonObject(folder, step, ranks), 2) + "\n";
}

json rankOverviewJsonObject(const RankFolder &folder, const std::optional<int64_t> &step, const std::vector<RankFigures> &ranks)
{
    const RankComparison c = compareRanks(ranks);
    json list = json::array();
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankFigures &r = ranks[i];
        json entry = {{"rank", r.file.rank},
                      {"file", r.file.path},
                      {"step", optionalJson(r.file.step)},
                      {"at_exit", r.file.atExit},
                      {"device", r.device},
                      {"peak_active_bytes", r.peakActiveBytes},
                      {"peak_reserved_bytes", r.peakReservedBytes},
                      {"oom_entries", r.oomEntries},
                      {"category_bytes_at_peak", categoryBytesJson(r.categoryBytesAtPeak)},
                      {"from_summary_file", r.fromSummaryFile},
                      {"outlier", std::find(c.outliers.begin(), c.outliers.end(), i) != c.outliers.end()}};
        addUnitsJson(entry, r.unitsFrom, r.unitsAtPeak);
        if (!r.error.empty())
            entry["error"] = r.error;
        list.push_back(entry);
    }
    json steps = json::array();
    for (const auto &s : folder.steps)
        steps.push_back(optionalJson(s));
    return {{"folder", folder.folder},
                       {"step", optionalJson(step)},
                       {"steps", steps},
                       {"rank_source", std::all_of(ranks.begin(), ranks.end(), [](const RankFigures &r) { return r.file.rankFromName; })
                                           ? "file names"
                                           : "file order"},
                       {"notes", folder.notes},
                       {"ranks", list},
                       {"median_peak_active_bytes", c.medianPeak},
                       {"imbalance", c.imbalance}};
}

std::string rankOverviewText(const RankFolder &folder, const std::optional<int64_t> &step, const std::vector<RankFigures> &ranks)
{
    const RankComparison c = compareRanks(ranks);
    std::ostringstream out;
    out << folder.folder << ": " << ranks.size() << (ranks.size() == 1 ? " rank" : " ranks");
    if (step)
        out << " at step " << *step;
    if (folder.steps.size() > 1)
        out << " (" << folder.steps.size() << " steps in the folder; --step picks another)";
    out << "\n";
    for (const std::string &note : folder.notes)
        out << "  note: " << note << "\n";
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankFigures &r = ranks[i];
        out << "  rank " << r.file.rank << ": ";
        if (!r.error.empty()) {
            out << "unreadable (" << r.error << ")\n";
            continue;
        }
        out << "peak " << formatBytes(r.peakActiveBytes) << ", reserved " << formatBytes(r.peakReservedBytes);
        if (r.oomEntries)
            out << ", " << r.oomEntries << " OOM";
        if (std::find(c.outliers.begin(), c.outliers.end(), i) != c.outliers.end())
            out << "  (outlier)";
        out << "  " << fs::path(r.file.path).filename().string() << "\n";
    }
    out.setf(std::ios::fixed);
    out.precision(2);
    out << "Imbalance (max / median peak): " << c.imbalance << "\n";
    writeUnitsAcrossRanks(out, ranks);
    return out.str();
}

} // namespace memlens
