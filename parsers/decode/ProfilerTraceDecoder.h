#pragma once
// torch.profiler Chrome traces (export_chrome_trace, profile_memory=True), read with a streaming
// SAX parser into the same model as snapshots: each [memory] event becomes an alloc or a free of
// its device (CPU memory is a device of its own), [OutOfMemory] an oom entry, and each allocation
// gets as its "stack" the operators and Python functions open on its thread at that moment.
#include "decode/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

void decodeProfilerTrace(ByteReader &reader, Snapshot &out);

// "path/file.py(123): name" (profiler python_function events) → frame parts; false if not that shape.
bool parsePythonFunctionName(std::string_view text, std::string_view &file, int64_t &line, std::string_view &name);

} // namespace memlens
