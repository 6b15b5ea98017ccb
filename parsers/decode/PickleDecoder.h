#pragma once
// A pickle reader that understands only data opcodes (protocols 2–5). It never imports or
// calls anything: an opcode that would is reported as "not a memory snapshot".
#include "decode/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

// Decodes a whole pickle from `reader` into `out`. Throws DecodeError with the byte offset.
void decodePickle(ByteReader &reader, Snapshot &out);

} // namespace memlens
