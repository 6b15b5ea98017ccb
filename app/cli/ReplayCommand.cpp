#include "cli/ReplayCommand.h"

#include "cli/CapacityOption.h"
#include "cli/CommandLine.h"
#include "cli/CommandSnapshot.h"
#include "analysis/DeviceIndex.h"
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
        std::vector<int> devices;
        for (int d : snapshot.devices()) {
            if (size_t(d) < snapshot.traces.size() && snapshot.traces[size_t(d)].count() > 0)
                devices.push_back(d);
        }
        if (snapshot.categories || devices.empty()) {
            std::cerr << "memlens replay: " << file << ": no allocator trace to replay (a memory-timeline file, or a snapshot without trace entries)\n";
            return 1;
        }
        if (snapshot.facts.format == FileFormat::ChromeTrace) {
            std::cerr << "memlens replay: " << file << ": a profiler trace records allocations, not the allocator's segments; replay needs a snapshot\n";
            return 1;
        }
        const int device = static_cast<int>(cl.integer("device").value_or(devices.front()));
        if (std::find(devices.begin(), devices.end(), device) == devices.end())
            throw std::invalid_argument(file + ": device " + std::to_string(device) + " has no trace entries");
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
