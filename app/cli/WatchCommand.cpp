#include "cli/WatchCommand.h"

#include "options/CommandLine.h"
#include "cache/SnapshotCache.h"
#include "watch/DumpFolderWatch.h"
#include "watch/WatchLog.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

namespace memlens {

int runWatchCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("watch"));
        if (cl.positional().size() != 1)
            throw std::invalid_argument(usageLine(commandSpec("watch")));
        const auto limit = cl.number("fail-if-peak-grows", "a percentage");
        const double interval = std::max(0.05, cl.number("interval", "seconds").value_or(1.0));
        const std::string folder = cl.positional().front();
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec)) {
            std::cerr << "memlens watch: " << folder << ": not a folder\n";
            return 1;
        }
        const SnapshotCache cache;
        // A dump is taken once unchanged for two looks and a second (or two looks' time).
        const auto settle = std::chrono::milliseconds(static_cast<long long>(std::max(1.0, 2 * interval) * 1000));
        DumpFolderWatch watch(folder, settle);
        RankPeakHistory history;
        for (;;) {
            for (const RankFile &file : watch.poll()) {
                const RankFigures figures = summarizeRank(file, cl.flag("no-cache") ? nullptr : &cache);
                if (!figures.error.empty()) {
                    // Complete by size, yet unreadable: its writer may only have paused.
                    std::cerr << "memlens watch: " << figures.error << " (taken again when it changes)\n";
                    continue;
                }
                const WatchLine line = history.add(figures);
                std::cout << (cl.flag("json-lines") ? watchLineJson(line) : watchLineText(line)) << std::endl;
                if (limit && peakGrewPast(line, *limit)) {
                    std::cerr << "memlens watch: rank " << file.rank << "'s peak grew " << *line.growthPercent << " % since its first dump, past "
                              << *limit << " %\n";
                    return 3;
                }
            }
            std::this_thread::sleep_for(std::chrono::duration<double>(interval));
        }
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens watch: " << e.what() << '\n';
        return 2;
    } catch (const std::runtime_error &e) {
        std::cerr << "memlens watch: " << e.what() << '\n';
        return 1;
    }
}

} // namespace memlens
