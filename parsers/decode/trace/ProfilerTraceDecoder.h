#pragma once
// torch.profiler Chrome traces (export_chrome_trace, profile_memory=True), read into the same
// model as snapshots (TraceEventSink says how).
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

// simdjson On-Demand over batches of the traceEvents list (ProfilerTraceReader.cpp), parsed by
// a worker thread per usable core but this one, up to kMaxTraceWorkers.
void decodeProfilerTrace(ByteReader &reader, Snapshot &out);
// The same with `workers` threads; with none, this thread parses.
void decodeProfilerTrace(ByteReader &reader, Snapshot &out, unsigned workers);
// Each holds a batch (~10 MB) in flight; beyond this many the reading thread keeps up no more.
constexpr unsigned kMaxTraceWorkers = 4;
// nlohmann's SAX parser over the whole stream: slower, validating everything; the reference the
// tests and the fuzzer hold the fast reader to.
void decodeProfilerTraceReference(ByteReader &reader, Snapshot &out);

// "path/file.py(123): name" (profiler python_function events) → frame parts; false if not that shape.
bool parsePythonFunctionName(std::string_view text, std::string_view &file, int64_t &line, std::string_view &name);

} // namespace memlens
