#include "cli/ReplayCommand.h"

#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "cli/CommandSnapshot.h"
#include "index/DeviceIndex.h"
#include "replay/ReplayAdmission.h"
#include "replay/ReplayReport.h"
#include "report/JsonText.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace memlens {

int runReplayCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("replay"));
        if (cl.positional().size() != 1)
            throw std::invalid_argument("usage: memlens replay FILE [--device N] [--alloc-conf CONF] [--gpu PRESET | --capacity BYTES] [--json] [--no-cache]");
        const std::string file = cl.positional().front();
        std::optional<AllocatorConfig> config;
        if (auto conf = cl.value("alloc-conf"))
            config = AllocatorConfig::parse(*conf);
        ReplayOptions options;
        const CapacityOption capacity = capacityOption(cl);
        options.capacity = capacity.bytes;
        options.capacitySource = capacity.source;
        options.deviceTotal = capacity.deviceTotal;
        if (config && config->perProcessMemoryFraction && !capacity.deviceTotal)
            throw std::invalid_argument("--alloc-conf per_process_memory_fraction is a share of the device: give --gpu PRESET for its total memory");

        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const Snapshot &snapshot = *loaded->snapshot;
        if (const std::optional<std::string> why = whyNotReplayable(snapshot)) {
            std::cerr << "memlens replay: " << file << ": " << *why << "\n";
            return 1;
        }
        const int device = static_cast<int>(cl.integer("device").value_or(replayableDevices(snapshot).front()));
        if (const std::optional<std::string> why = whyNotReplayable(snapshot, device))
            throw std::invalid_argument(file + ": " + *why);
        options.config = config ? *config : AllocatorConfig::recorded(snapshot);
        const DeviceIndex index(snapshot, device);
        const ReplayResult result = replayTrace(snapshot, index, options);
        std::cout << (cl.flag("json") ? jsonText(replayJson(file, result), 2) + "\n" : replayText(file, result));
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens replay: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
