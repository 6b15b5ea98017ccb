#include "ranks/RunGpus.h"

#include "ranks/RankFiles.h"

namespace memlens {

Inferred<int> runGpus(std::optional<int> given, const std::string &source, const std::string &snapshotPath)
{
    if (given)
        return {given, source, Confidence::High};
    if (const std::optional<WorldSize> beside = worldSizeBeside(snapshotPath))
        return {beside->ranks, beside->how, Confidence::Medium};
    return {};
}

} // namespace memlens
