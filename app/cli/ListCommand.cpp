#include "cli/ListCommand.h"

#include "cli/RenderCommand.h"
#include "estimator/EstimatorPresets.h"

#include <iostream>

namespace memlens {

int runListCommand(const std::vector<std::string> &args)
{
    const std::string what = args.empty() ? std::string() : args.front();
    if (args.size() != 1 || (what != "views" && what != "models" && what != "gpus")) {
        std::cerr << "usage: memlens --list views|models|gpus\n";
        return 2;
    }
    if (what == "views")
        std::cout << renderViewNames("\n") << '\n';
    if (what == "models") {
        for (const ModelShape &m : modelPresets())
            std::cout << m.name << '\n';
    }
    if (what == "gpus") {
        for (const GpuPreset &g : gpuPresets())
            std::cout << g.name << '\n';
    }
    return 0;
}

} // namespace memlens
