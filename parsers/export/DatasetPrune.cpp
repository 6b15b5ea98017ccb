#include "export/DatasetPrune.h"

#include "export/DatasetFigures.h"
#include "export/DatasetLayout.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

namespace memlens {

namespace fs = std::filesystem;

std::vector<std::string> pruneDataset(const std::string &out, const std::string &dir, const std::set<std::string> &kept)
{
    const std::string below = resolvedPath(dir) + "/";
    std::vector<std::string> removed;
    for (const DatasetInput &input : datasetInputs(out)) {
        if (input.dump.empty())
            continue;
        const std::string dump = resolvedPath(input.dump);
        if (!dump.starts_with(below) || kept.contains(dump))
            continue;
        const fs::path folder(input.folder);
        const fs::path hidden = folder.parent_path() / ("." + folder.filename().string() + ".pruned." + std::to_string(::getpid()));
        std::error_code ec;
        fs::rename(folder, hidden, ec);
        if (ec)
            continue;
        fs::remove_all(hidden, ec);
        removed.push_back(dump);
    }
    std::sort(removed.begin(), removed.end());
    return removed;
}

} // namespace memlens
