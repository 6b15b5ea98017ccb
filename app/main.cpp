#include "SummaryCommand.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "summary")
        return memlens::runSummaryCommand({args.begin() + 1, args.end()});
    std::cerr << "memlens: the GUI is not built yet\n";
    return 2;
}
