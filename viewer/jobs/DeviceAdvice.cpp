#include "jobs/DeviceAdvice.h"

#include "questions/AdviseQuestion.h"

namespace memlens {

Advice adviseDevice(const IndexedDevice &device, const Inferred<int> &gpus)
{
    return answerAdvise(device, AdviseRequest{}, gpus).advice;
}

} // namespace memlens
