#pragma once
// torch.profiler Chrome traces (export_chrome_trace, profile_memory=True), read into the same
// model as snapshots (TraceEventSink says how).
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

// simdjson On-Demand over batches of the traceEvents list (ProfilerTraceReader.cpp).
void decodeProfilerTrace(ByteReader &reader, Snapshot &out);
// nlohmann's SAX parser over the whole stream: slower, validating everything; the reference the
// tests and the fuzzer hold the fast reader to.
void decodeProfilerTraceReference(ByteReader &reader, Snapshot &out);

// "path/file.py(123): name" (profiler python_function events) → frame parts; false if not that shape.
bool parsePythonFunctionName(std::string_view text, std::string_view &file, int64_t &line, std::string_view &name);

} // namespace memlens
