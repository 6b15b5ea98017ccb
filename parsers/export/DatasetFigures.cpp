#include "export/DatasetFigures.h"

#include "figures/AllocationCategories.h"
#include "parquet/ParquetFileReader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

namespace memlens {

namespace fs = std::filesystem;

namespace {

// "rank=3" → 3 for `key` "rank"; nothing for another folder name.
std::optional<int64_t> partitionValue(const std::string &name, std::string_view key)
{
    if (name.size() <= key.size() + 1 || name.compare(0, key.size(), key) != 0 || name[key.size()] != '=')
        return std::nullopt;
    int64_t value = 0;
    const char *begin = name.data() + key.size() + 1, *end = name.data() + name.size();
    const auto [at, ec] = std::from_chars(begin, end, value);
    return ec == std::errc() && at == end ? std::optional<int64_t>(value) : std::nullopt;
}

struct Part {
    fs::path path;
    int rank = 0;
    int64_t step = 0;
};

// The snapshots table's parts: regular files only (a FIFO would hang the read), `atMost` of them.
std::vector<Part> snapshotParts(const std::string &dir, size_t atMost = SIZE_MAX)
{
    std::vector<Part> parts;
    std::error_code ec;
    for (fs::directory_iterator r(dir, ec), end; !ec && r != end; r.increment(ec)) {
        const auto rank = partitionValue(r->path().filename().string(), "rank");
        if (!rank || *rank < 0 || *rank > INT32_MAX)
            continue;
        for (fs::directory_iterator s(r->path(), ec), send; !ec && s != send; s.increment(ec)) {
            const auto step = partitionValue(s->path().filename().string(), "step");
            if (!step)
                continue;
            // Each input's folder (a staging one, hidden, is not yet an input).
            for (fs::directory_iterator f(s->path(), ec), fend; !ec && f != fend; f.increment(ec)) {
                if (!f->path().filename().string().starts_with("input="))
                    continue;
                const fs::path table = f->path() / "snapshots.parquet";
                std::error_code fileEc;
                if (fs::is_regular_file(table, fileEc))
                    parts.push_back({table, static_cast<int>(*rank), *step});
                if (parts.size() >= atMost)
                    return parts;
            }
        }
    }
    return parts;
}

// A part's bytes; throws std::runtime_error naming it when it cannot be read or is too large.
std::string partBytes(const Part &part)
{
    // A part of the snapshots table is a few KiB per dump; the file is not read whole beyond this.
    constexpr uintmax_t kMaxPartBytes = uintmax_t{1} << 30;
    std::error_code ec;
    if (const uintmax_t size = fs::file_size(part.path, ec); ec || size > kMaxPartBytes)
        throw std::runtime_error(part.path.string() + (ec ? ": cannot be read" : ": a snapshots part of " + std::to_string(size) +
                                                                                      " bytes (memlens reads parts up to 1 GiB)"));
    std::ifstream in(part.path, std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), {}};
    if (!in.good() && !in.eof())
        throw std::runtime_error(part.path.string() + ": cannot be read");
    return bytes;
}

// The rows of one part: a dump per file name, its busiest device.
void readPart(const Part &part, DatasetFigures &out, std::map<std::string, size_t> &byFile)
{
    const std::string bytes = partBytes(part);
    try {
        const parquet::ParquetFileReader reader(bytes);
        if (out.source.empty())
            out.source = reader.metadata(kDatasetSourceKey).value_or("");
        const auto files = reader.strings("file");
        const auto devices = reader.integers("device");
        const auto peaks = reader.integers("peak_active_bytes");
        const auto reserved = reader.integers("peak_reserved_bytes");
        const auto ooms = reader.integers("oom_count");
        std::array<std::vector<std::optional<int64_t>>, kCategoryCount> categories;
        for (size_t c = 0; c < kCategoryCount; ++c) {
            const std::string column = std::string(categoryName(static_cast<Category>(c))) + "_bytes_at_peak";
            // Datasets written before kv_cache was a category lack its column: none of it then.
            const bool present = std::any_of(reader.columns().begin(), reader.columns().end(), [&](const auto &info) { return info.name == column; });
            categories[c] = present ? reader.integers(column) : std::vector<std::optional<int64_t>>(files.size());
        }
        for (size_t row = 0; row < files.size(); ++row) {
            if (!files[row] || !devices[row] || !peaks[row] || !reserved[row] || !ooms[row] || *peaks[row] < 0 || *reserved[row] < 0 || *ooms[row] < 0)
                throw parquet::ParquetFormatError(0, "a snapshots row without its figures");
            auto [it, added] = byFile.try_emplace(part.path.parent_path().string() + "/" + *files[row], out.figures.size());
            if (added) {
                RankFile file;
                file.path = *files[row];
                file.rank = part.rank;
                file.rankFromName = true;
                file.step = part.step;
                out.figures.emplace_back(file);
            }
            std::array<uint64_t, kCategoryCount> bytes{};
            for (size_t c = 0; c < kCategoryCount; ++c)
                bytes[c] = static_cast<uint64_t>(std::max<int64_t>(0, categories[c][row].value_or(0)));
            keepBusiestDevice(out.figures[it->second], added, static_cast<int>(*devices[row]), static_cast<uint64_t>(*peaks[row]),
                              static_cast<uint64_t>(*reserved[row]), static_cast<size_t>(*ooms[row]), bytes);
        }
    } catch (const parquet::ParquetFormatError &e) {
        // Offset 0: about the file as a whole (a column missing, a row without its figures), not
        // its first byte.
        throw std::runtime_error(part.path.string() + (e.offset ? ": byte " + std::to_string(e.offset) : std::string()) + ": " + e.what());
    }
}

} // namespace

std::vector<DatasetInput> datasetInputs(const std::string &dir)
{
    std::vector<DatasetInput> inputs;
    for (const Part &part : snapshotParts(dir)) {
        DatasetInput input{part.path.parent_path().string(), {}};
        try {
            const std::string bytes = partBytes(part);
            const parquet::ParquetFileReader reader(bytes);
            const auto files = reader.strings("file");
            const std::string source = reader.metadata(kDatasetSourceKey).value_or("");
            if (!files.empty() && files.front() && !source.empty())
                input.dump = (fs::path(source) / *files.front()).string();
        } catch (const std::exception &) {
            // Unreadable: held, but of no known dump.
        }
        inputs.push_back(std::move(input));
    }
    return inputs;
}

size_t datasetInputCount(const std::string &dir)
{
    return snapshotParts(dir).size();
}

bool isFleetDataset(const std::string &dir)
{
    return !snapshotParts(dir, 1).empty();
}

DatasetFigures readDatasetFigures(const std::string &dir)
{
    std::vector<Part> parts = snapshotParts(dir);
    if (parts.empty())
        throw std::runtime_error(dir + ": no Parquet dataset (rank=R/step=S/input=…/snapshots.parquet) in it");
    std::sort(parts.begin(), parts.end(), [](const Part &a, const Part &b) { return a.path < b.path; });
    DatasetFigures out;
    std::map<std::string, size_t> byFile;
    for (const Part &part : parts)
        readPart(part, out, byFile);
    std::error_code ec;
    out.sourceAtHand = !out.source.empty() && fs::is_directory(out.source, ec);
    for (RankFigures &f : out.figures) {
        if (out.sourceAtHand)
            f.file.path = (fs::path(out.source) / f.file.path).string();
    }
    std::stable_sort(out.figures.begin(), out.figures.end(), [](const RankFigures &a, const RankFigures &b) {
        return std::tie(a.file.step, a.file.rank) < std::tie(b.file.step, b.file.rank);
    });
    out.folder.folder = out.sourceAtHand ? out.source : dir;
    for (const RankFigures &f : out.figures) {
        out.folder.files.push_back(f.file);
        if (std::find(out.folder.steps.begin(), out.folder.steps.end(), f.file.step) == out.folder.steps.end())
            out.folder.steps.push_back(f.file.step);
    }
    std::sort(out.folder.steps.begin(), out.folder.steps.end());
    out.folder.notes.push_back(out.sourceAtHand ? "From the Parquet dataset " + dir + "; the dumps are at hand: double-click opens one"
                                                : "From the Parquet dataset " + dir + " alone: the dumps" +
                                                      (out.source.empty() ? std::string() : " (" + out.source + ")") +
                                                      " are not on this machine, so they cannot be opened");
    return out;
}

} // namespace memlens
