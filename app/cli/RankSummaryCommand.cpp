#include "cli/RankSummaryCommand.h"

#include "options/CommandLine.h"
#include "cache/SnapshotCache.h"
#include "index/DeviceIndex.h"
#include "ranks/RankSummary.h"
#include "stitch/StitchedReport.h"
#include "pipeline/RankStitch.h"

#include <iostream>
#include <thread>

namespace memlens {

namespace {

int printStitchedRank(const RankFolder &folder, int rank, const CommandLine &cl)
{
    if (dumpsOfRank(folder, rank).empty())
        throw std::invalid_argument(folder.folder + ": no snapshots of rank " + std::to_string(rank));
    const SnapshotCache cache;
    const StitchedRun run = stitchRank(folder, rank, cl.flag("no-cache") ? nullptr : &cache);
    const auto top = static_cast<size_t>(cl.integer("top").value_or(10));
    std::vector<DeviceReport> reports;
    for (int d : run.snapshot->devices()) {
        DeviceIndex index(*run.snapshot, d);
        reports.push_back(reportDevice(*run.snapshot, index, top, std::nullopt));
    }
    const std::string name = folder.folder + " rank " + std::to_string(rank);
    std::cout << (cl.flag("json") ? stitchedSummaryJson(run, name, rank, reports) : stitchedSummaryText(run, name, reports));
    std::cout.flush();
    return 0;
}

} // namespace

int runRankSummaryCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("summary"), "DIR");
        if (cl.positional().size() != 1 || cl.flag("stitch") != cl.integer("rank").has_value())
            throw std::invalid_argument("usage: memlens summary DIR [--step N] [--threads N] [--json] [--no-cache]\n"
                                        "       memlens summary DIR --rank R --stitch [--top K] [--json] [--no-cache]");
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
        if (cl.flag("stitch"))
            return printStitchedRank(folder, static_cast<int>(*cl.integer("rank")), cl);
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
