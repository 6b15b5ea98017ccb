#include "export/DatasetLayout.h"

#include "decode/input/FileChecksum.h"
#include "ranks/RankFiles.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace memlens {

std::string resolvedPath(const std::string &path)
{
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    return ec ? std::filesystem::absolute(path, ec).lexically_normal().string() : resolved.string();
}

ExportInputs exportInputs(const std::string &fileOrDir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(fileOrDir, ec)) {
        if (!std::filesystem::exists(fileOrDir, ec))
            throw std::runtime_error(fileOrDir + ": no such file or folder");
        const RankNaming naming = parseRankPath(fileOrDir);
        const std::filesystem::path absolute = std::filesystem::absolute(fileOrDir, ec);
        return {{{fileOrDir, absolute.filename().string(), naming.rank.value_or(0), naming.step.value_or(0), absolute.parent_path().string(),
                  resolvedPath(fileOrDir)}},
                {}};
    }
    const RankFolder folder = findRankFiles(fileOrDir);
    if (folder.files.empty())
        throw std::runtime_error(fileOrDir + ": no snapshot files (*.pickle, *.pkl, *.pickle.zst) in it" +
                                 (folder.notes.empty() ? std::string() : " (" + folder.notes.front() + ")"));
    const std::string source = std::filesystem::absolute(fileOrDir, ec).lexically_normal().string();
    ExportInputs out{{}, folder.notes};
    for (const RankFile &f : folder.files)
        out.inputs.push_back({f.path, std::filesystem::relative(f.path, fileOrDir, ec).generic_string(), f.rank, f.step.value_or(0), source,
                              resolvedPath(f.path)});
    std::sort(out.inputs.begin(), out.inputs.end(), [](const ExportInput &a, const ExportInput &b) { return a.path < b.path; });
    return out;
}

std::vector<ExportInput> shareOf(const std::vector<ExportInput> &inputs, int i, int n)
{
    if (n < 1 || i < 1 || i > n)
        throw std::invalid_argument("--shard I/N needs 1 ≤ I ≤ N");
    const size_t count = inputs.size();
    const size_t begin = count * static_cast<size_t>(i - 1) / static_cast<size_t>(n);
    const size_t end = count * static_cast<size_t>(i) / static_cast<size_t>(n);
    return {inputs.begin() + static_cast<long>(begin), inputs.begin() + static_cast<long>(end)};
}

std::string inputFolder(const std::string &out, const ExportInput &input)
{
    // A letter before the hash: a value of digits alone would be read as a number by DuckDB's
    // partition typing, in some folders and not others.
    char name[40];
    std::snprintf(name, sizeof name, "input=x%016llx", static_cast<unsigned long long>(fnv1a(input.resolved + '\0')));
    return (std::filesystem::path(out) / ("rank=" + std::to_string(input.rank)) / ("step=" + std::to_string(input.step)) / name).string();
}

std::string tableFileName(std::string_view table)
{
    return std::string(table) + ".parquet";
}

} // namespace memlens
