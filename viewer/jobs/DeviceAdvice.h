#pragma once
// The window's advice on a device of its document: the advise question's answer, asked as
// `memlens advise FILE` asks it (at the first OOM, else the peak), with the run's GPU count as
// the load pipeline found it.
#include "pipeline/DocumentPipeline.h"

namespace memlens {

Advice adviseDevice(const IndexedDevice &device, const Inferred<int> &gpus);

} // namespace memlens
