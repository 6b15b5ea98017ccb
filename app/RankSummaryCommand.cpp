#include "RankSummaryCommand.h"

#include "CommandLine.h"
#include "cache/SnapshotCache.h"
#include "ranks/RankSummary.h"

#include <iostream>
#include <thread>

namespace memlens {

int runRankSummaryCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, {"step", "threads"}, {"json", "no-cache"});
        if (cl.positional().size() != 1)
            throw std::invalid_argument("usage: memlens summary DIR [--step N] [--threads N] [--json] [--no-cache]");
        RankFolder folder;
        try {
            folder = findRankFiles(cl.positional().front());
        } catch (const std::exception &e) {
            std::cerr << "memlens: " << e.what() << '\n';
            return 1;
        }
        if (folder.files.empty()) {
            std::cerr << "memlens: " << folder.folder << ": no snapshot files (*.pickle, *.pkl, *.pickle.zst) in it\n";
            return 1;
        }
        std::optional<int64_t> step = folder.latestStep();
        if (const auto wanted = cl.integer("step")) {
            step = *wanted;
            if (std::find(folder.steps.begin(), folder.steps.end(), step) == folder.steps.end())
                throw std::invalid_argument(folder.folder + ": no snapshots of step " + std::to_string(*wanted));
        }
        const unsigned threads = static_cast<unsigned>(cl.integer("threads").value_or(std::max(1u, std::thread::hardware_concurrency())));
        const SnapshotCache cache;
        const std::vector<RankFigures> ranks = summarizeRanks(folder.filesOfStep(step), threads, cl.flag("no-cache") ? nullptr : &cache);
        std::cout << (cl.flag("json") ? rankOverviewJson(folder, step, ranks) : rankOverviewText(folder, step, ranks));
        std::cout.flush();
        for (const RankFigures &r : ranks) {
            if (!r.error.empty())
                return 1;
        }
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens summary: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
