#include "cli/DiffCommand.h"

#include "options/CommandLine.h"
#include "cli/CommandSnapshot.h"
#include "figures/SnapshotSummary.h"
#include "model/ByteFormat.h"
#include "report/RunDiff.h"
#include "report/JsonText.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace memlens {

int runDiffCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("diff"));
        if (cl.positional().size() != 2 || (cl.flag("json") && cl.flag("markdown")))
            throw std::invalid_argument("usage: memlens diff A B [--at peak|oom|end|EVENT] [--device N] [--top K] [--json | --markdown] "
                                        "[--fail-if-peak-grows PCT] [--fail-if-reserved-grows PCT] [--no-cache]");
        const int device = static_cast<int>(cl.integer("device").value_or(0));
        const Moment at = cl.moment("at").value_or(Moment::peak());
        const auto top = static_cast<size_t>(cl.integer("top").value_or(20));
        const DiffLimits limits{cl.number("fail-if-peak-grows", "a percentage"), cl.number("fail-if-reserved-grows", "a percentage")};
        const std::optional<CachedSnapshot> loadedA = loadForCommand(cl.positional()[0], cl.flag("no-cache"));
        if (!loadedA)
            return 1;
        const std::optional<CachedSnapshot> loadedB = loadForCommand(cl.positional()[1], cl.flag("no-cache"));
        if (!loadedB)
            return 1;
        const Snapshot *a = loadedA->snapshot.get(), *b = loadedB->snapshot.get();
        for (const auto &[snap, name] : {std::pair{a, cl.positional()[0]}, std::pair{b, cl.positional()[1]}}) {
            const auto devices = snap->devices();
            if (std::find(devices.begin(), devices.end(), device) == devices.end())
                throw std::invalid_argument(name + ": device " + std::to_string(device) + " has no segments or trace entries");
        }
        const DeviceIndex ia(*a, device), ib(*b, device);
        eventAt(ia, at); // the --at error, worded for the command line
        eventAt(ib, at);
        const RunDiff d = diffRuns(*a, ia, cl.positional()[0], *b, ib, cl.positional()[1], at);
        if (cl.flag("json")) {
            std::cout << jsonText(diffJson(d, device, top), 2) << '\n';
        } else if (cl.flag("markdown")) {
            std::cout << diffMarkdown(d, top);
        } else {
            std::cout << "Peak active: " << formatBytes(d.a.peakActiveBytes) << " in A, " << formatBytes(d.b.peakActiveBytes) << " in B\n"
                      << "Peak reserved: " << formatBytes(d.a.peakReservedBytes) << " in A, " << formatBytes(d.b.peakReservedBytes) << " in B\n"
                      << "Live at " << at.text() << ": " << formatBytes(d.a.liveAtPoint) << " in A, " << formatBytes(d.b.liveAtPoint) << " in B\n";
            if (d.sites.empty())
                std::cout << "No differences by call site.\n";
            for (size_t i = 0; i < d.sites.size() && i < top; ++i) {
                const int64_t c = d.sites[i].change();
                std::cout << (c >= 0 ? "  +" : "  -") << formatBytes(static_cast<uint64_t>(std::abs(c))) << "  " << d.sites[i].site << "  ("
                          << formatBytes(static_cast<uint64_t>(d.sites[i].bytesA)) << " -> " << formatBytes(static_cast<uint64_t>(d.sites[i].bytesB)) << ")\n";
            }
        }
        std::cout.flush();
        // The gate: the report above is printed either way, the verdict goes to stderr.
        const DiffGate gate = diffGate(d, limits);
        if (gate.peakOver)
            std::cerr << "memlens diff: peak active grew " << gate.peakGrowth << " %, more than the allowed " << *limits.peakGrowsPercent << " %\n";
        if (gate.reservedOver)
            std::cerr << "memlens diff: peak reserved grew " << gate.reservedGrowth << " %, more than the allowed " << *limits.reservedGrowsPercent
                      << " %\n";
        return gate.passed() ? 0 : 3;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens diff: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
