#include "cli/SummaryCommand.h"

#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "cli/CommandSnapshot.h"
#include "cli/RankSummaryCommand.h"
#include "views/CallTree.h"
#include "index/DeviceIndex.h"
#include "decode/SnapshotLoader.h"
#include "report/SummaryReport.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace memlens {

int runSummaryCommand(const std::vector<std::string> &args)
{
    for (const std::string &a : args) {
        std::error_code ec;
        if (!a.starts_with("--") && std::filesystem::is_directory(a, ec))
            return runRankSummaryCommand(args);
    }
    try {
        CommandLine cl(args, commandSpec("summary"), "FILE");
        if (cl.positional().size() != 1)
            throw std::invalid_argument("usage: memlens summary FILE [--device N] [--top K] [--at peak|oom|end|EVENT] [--gpu PRESET] "
                                        "[--json | --folded [--bottom-up]] [--no-cache]");
        // The device's total, for the memory an OOM shows outside the allocator.
        const std::optional<uint64_t> deviceTotal = capacityOption(cl).deviceTotal;
        const std::string file = cl.positional().front();
        const auto top = static_cast<size_t>(cl.integer("top").value_or(10));
        const auto device = cl.integer("device");
        const auto at = cl.moment("at");

        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const std::shared_ptr<const Snapshot> &snapshot = loaded->snapshot; // its cache entry is written meanwhile
        std::vector<int> devices = snapshot->devices();
        if (device) {
            if (std::find(devices.begin(), devices.end(), *device) == devices.end())
                throw std::invalid_argument(file + ": device " + std::to_string(*device) + " has no segments or trace entries");
            devices = {static_cast<int>(*device)};
        }
        if (cl.flag("folded")) {
            // Folded stacks of what is live at --at (default the peak), for flamegraph.pl/speedscope:
            // one device's (a folded file has no place to say which), the first unless --device.
            if (devices.empty())
                throw std::invalid_argument(file + ": no device has segments or trace entries");
            DeviceIndex index(*snapshot, devices.front());
            const EventId e = eventAt(index, at.value_or(Moment::peak()));
            CallTreeOptions options;
            options.bottomUp = cl.flag("bottom-up");
            std::cout << CallTree(*snapshot, index, index.liveAt(e), options).folded();
            return 0;
        }
        std::vector<DeviceReport> reports;
        for (int d : devices) {
            DeviceIndex index(*snapshot, d);
            reports.push_back(reportDevice(*snapshot, index, top, at ? std::optional(eventAt(index, *at)) : std::nullopt, deviceTotal));
        }
        std::cout << (cl.flag("json") ? summaryJson(*snapshot, file, reports) : summaryText(*snapshot, file, reports));
        std::cout.flush();
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens summary: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
