#pragma once
#include <QString>

namespace memlens {

// The bundled example snapshot (a real GPT-2 training run), unpacked from the resources to
// the cache directory on first use. Empty when that fails.
QString exampleSnapshotPath();

} // namespace memlens
