#include "cli/AdviseCommand.h"

#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "cli/CommandSnapshot.h"
#include "advice/AdviceReport.h"
#include "ranks/RunGpus.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "report/JsonText.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace memlens {

int runAdviseCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("advise"));
        if (cl.positional().size() != 1)
            throw std::invalid_argument("usage: memlens advise FILE [--device N] [--at peak|oom|end|EVENT] [--gpu PRESET | --capacity BYTES] "
                                        "[--gpus N] [--sort effort|saves] [--json] [--no-cache]");
        const std::string file = cl.positional().front();
        AdviceOptions options;
        options.at = cl.moment("at");
        if (const auto sort = cl.value("sort")) {
            if (*sort != "effort" && *sort != "saves")
                throw std::invalid_argument("--sort takes effort or saves, not '" + *sort + "'");
            options.bySaves = *sort == "saves";
        }
        const auto gpus = cl.integer("gpus");
        options.gpus = runGpus(gpus ? std::optional<int>(static_cast<int>(std::clamp<long long>(*gpus, 1, 1 << 20))) : std::nullopt, "--gpus", file);
        const CapacityOption capacity = capacityOption(cl);
        options.capacity = capacity.bytes;
        options.capacitySource = capacity.source;
        options.deviceTotal = capacity.deviceTotal;

        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const Snapshot &snapshot = *loaded->snapshot;
        const std::vector<int> devices = snapshot.devices();
        // A valid file with nothing to act on is an answer, not wrong usage.
        const char *nothing = snapshot.categories ? "a memory-timeline file holds bytes per category, not allocations to advise on"
                              : devices.empty()   ? "no device has segments or trace entries"
                                                  : nullptr;
        if (nothing) {
            if (cl.flag("json"))
                std::cout << jsonText(nlohmann::json{{"file", file}, {"nothing_to_advise", nothing}}, 2) << '\n';
            else
                std::cout << file << ": nothing to advise: " << nothing << '\n';
            return 0;
        }
        const int device = static_cast<int>(cl.integer("device").value_or(devices.front()));
        if (std::find(devices.begin(), devices.end(), device) == devices.end())
            throw std::invalid_argument(file + ": device " + std::to_string(device) + " has no segments or trace entries");
        const DeviceIndex index(snapshot, device);
        if (options.at)
            eventAt(index, *options.at); // the --at error, worded for the command line
        const AllocationCategories categories(snapshot, index);
        const Advice advice = advise(snapshot, index, categories, options);
        std::cout << (cl.flag("json") ? jsonText(adviceJson(file, device, advice), 2) + "\n" : adviceText(file, device, advice));
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens advise: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
