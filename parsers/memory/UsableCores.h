#pragma once
// The cores this process may run on: its affinity mask (what `taskset` and cgroups leave it),
// not the machine's count, which std::thread::hardware_concurrency() gives.
#include <sched.h>
#include <thread>

namespace memlens {

inline unsigned usableCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
    const unsigned all = std::thread::hardware_concurrency();
    return all ? all : 1;
}

} // namespace memlens
