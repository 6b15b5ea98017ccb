#include "cli/ListCommand.h"

#include "cli/RenderCommand.h"
#include "estimator/EstimatorPresets.h"
#include "questions/CommandOptions.h"

#include <iostream>

namespace memlens {

int runListCommand(const std::vector<std::string> &args)
{
    const std::string what = args.empty() ? std::string() : args.front();
    if (what == "options" && args.size() == 2) {
        // A command's flags (questions/CommandOptions), for shell completion.
        for (const CommandSpec &spec : commandSpecs()) {
            if (spec.name == args[1]) {
                for (const CommandOption &o : spec.options)
                    std::cout << flagOf(o.name) << '\n';
                return 0;
            }
        }
    }
    if (args.size() != 1 || (what != "views" && what != "models" && what != "gpus")) {
        std::cerr << "usage: memlens --list views|models|gpus|options COMMAND\n";
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
