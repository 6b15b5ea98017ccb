#pragma once
// Sequential byte sources: a plain file, or a zstd / gzip stream decompressed on the fly,
// so a compressed 1 GB snapshot never has to sit in memory whole.
#include "model/FileKinds.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace memlens {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Reads up to `capacity` bytes; returns 0 only at the end of the data. Throws DecodeError.
    virtual size_t read(char *buffer, size_t capacity) = 0;
    // Bytes of the underlying file consumed so far (for progress).
    virtual uint64_t fileBytesRead() const = 0;
};


struct OpenedSource {
    std::unique_ptr<ByteSource> source;
    Compression compression = Compression::None;
    uint64_t fileSize = 0;
};

// Opens `path`, detects compression by magic bytes. Throws LoadError naming the file.
OpenedSource openByteSource(const std::string &path);
// The same over bytes in memory (fuzzing, tests); `data` must outlive the source.
OpenedSource openMemorySource(std::string_view data, const std::string &name);

} // namespace memlens
