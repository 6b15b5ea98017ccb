#include "DiffCommand.h"

#include "CommandLine.h"
#include "analysis/CallTree.h"
#include "analysis/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "model/ByteFormat.h"
#include "model/LoadError.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace memlens {

int runDiffCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, {"at", "device", "top"}, {"json"});
        if (cl.positional().size() != 2)
            throw std::invalid_argument("usage: memlens diff A B [--at peak|oom|EVENT] [--device N] [--top K] [--json]");
        const int device = static_cast<int>(cl.integer("device").value_or(0));
        const std::string at = cl.value("at").value_or("peak");
        const auto top = static_cast<size_t>(cl.integer("top").value_or(20));
        std::unique_ptr<Snapshot> a, b;
        try {
            a = loadSnapshot(cl.positional()[0]);
            b = loadSnapshot(cl.positional()[1]);
        } catch (const LoadError &e) {
            std::cerr << "memlens: " << e.what() << '\n';
            return 1;
        }
        for (const auto &[snap, name] : {std::pair{a.get(), cl.positional()[0]}, std::pair{b.get(), cl.positional()[1]}}) {
            const auto devices = snap->devices();
            if (std::find(devices.begin(), devices.end(), device) == devices.end())
                throw std::invalid_argument(name + ": device " + std::to_string(device) + " has no segments or trace entries");
        }
        DeviceIndex ia(*a, device), ib(*b, device);
        const uint32_t ea = resolveEvent(ia, at), eb = resolveEvent(ib, at);
        const std::vector<SiteDiff> sites = diffBySite(*a, ia, ea, *b, ib, eb);
        const uint64_t totalA = ia.activeAfter(ea), totalB = ib.activeAfter(eb);
        if (cl.flag("json")) {
            nlohmann::json list = nlohmann::json::array();
            for (size_t i = 0; i < sites.size() && i < top; ++i)
                list.push_back({{"site", sites[i].site}, {"bytes_a", sites[i].bytesA}, {"bytes_b", sites[i].bytesB}, {"change", sites[i].change()}});
            nlohmann::json j = {{"a", cl.positional()[0]}, {"b", cl.positional()[1]}, {"device", device}, {"at", at},
                                {"total_a", totalA}, {"total_b", totalB}, {"change", int64_t(totalB) - int64_t(totalA)},
                                {"differing_sites", sites.size()}, {"sites", list}};
            std::cout << j.dump(2) << '\n';
            return 0;
        }
        std::cout << "Live at " << at << ": " << formatBytes(totalA) << " in A, " << formatBytes(totalB) << " in B\n";
        if (sites.empty())
            std::cout << "No differences by call site.\n";
        for (size_t i = 0; i < sites.size() && i < top; ++i) {
            const int64_t c = sites[i].change();
            std::cout << (c >= 0 ? "  +" : "  -") << formatBytes(static_cast<uint64_t>(std::abs(c))) << "  " << sites[i].site << "  ("
                      << formatBytes(static_cast<uint64_t>(sites[i].bytesA)) << " -> " << formatBytes(static_cast<uint64_t>(sites[i].bytesB)) << ")\n";
        }
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens diff: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
