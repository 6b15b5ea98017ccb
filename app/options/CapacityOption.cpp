#include "options/CapacityOption.h"

namespace memlens {

CapacityRequest capacityOption(const CommandLine &cl)
{
    return resolveCapacity(cl.value("gpu"), cl.integer("capacity"), "--");
}

} // namespace memlens
