#pragma once
// Opening a file: compression and format detection, then the matching decoder.
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

#include <memory>
#include <string>

namespace memlens {

// Throws LoadError ("FILE: byte N: reason") or LoadCancelled.
std::unique_ptr<Snapshot> loadSnapshot(const std::string &path, const LoadControl &control = {});
// The same for bytes in memory; `name` stands for the file in messages.
std::unique_ptr<Snapshot> loadSnapshotFromMemory(std::string_view data, const std::string &name);

} // namespace memlens
