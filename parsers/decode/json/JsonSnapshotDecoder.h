#pragma once
// Snapshots saved as JSON (the same dict as the pickle), read with a streaming SAX parser.
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

void decodeJsonSnapshot(ByteReader &reader, Snapshot &out);

} // namespace memlens
