#pragma once
// Reads one batch of whole profiler trace events ("[{…}, {…}]") with simdjson's On-Demand
// parser into TraceEvents, whose views point into the batch's bytes.
#include "decode/trace/TraceEventSink.h"

#include <simdjson.h>
#include <vector>

namespace memlens {

// Appends the batch's events to `events`; an error leaves a part of them there. The parser is
// sized by the view's capacity (the whole buffer), once for all the batches that buffer holds.
simdjson::error_code parseTraceBatch(simdjson::ondemand::parser &parser, simdjson::padded_string_view json, std::vector<TraceEvent> &events);

} // namespace memlens
