#include "decode/SnapshotLoader.h"

#include <malloc.h>

#include "decode/json/JsonSnapshotDecoder.h"
#include "decode/json/MemoryTimelineDecoder.h"
#include "decode/pickle/PickleDecoder.h"
#include "decode/trace/ProfilerTraceDecoder.h"
#include "model/LoadError.h"

#include <cctype>
#include <new>

namespace memlens {

namespace {
std::unique_ptr<Snapshot> decode(OpenedSource opened, const std::string &path, const LoadControl &control)
{
    ByteReader reader(*opened.source, opened.fileSize, control);
    auto snapshot = std::make_unique<Snapshot>();
    snapshot->facts.compression = opened.compression;
    try {
        int first = reader.peek();
        while (first == ' ' || first == '\n' || first == '\r' || first == '\t') {
            reader.byte();
            first = reader.peek();
        }
        if (first < 0)
            throw DecodeError(reader.offset(), "file is empty");
        if (first == 0x80) {
            decodePickle(reader, *snapshot);
        } else if (first == '{' || first == '[') {
            // Which JSON: a profiler trace names "traceEvents" near its start; a memory timeline
            // is a list of lists; a snapshot is a dict (or, ≤ 1.13, a list of dicts).
            const std::string_view head = reader.lookahead(1 << 20);
            size_t second = 1;
            while (second < head.size() && std::isspace(static_cast<unsigned char>(head[second])))
                ++second;
            if (first == '{' && head.find("\"traceEvents\"") != std::string_view::npos)
                decodeProfilerTrace(reader, *snapshot);
            else if (first == '[' && second < head.size() && head[second] == '[')
                decodeMemoryTimeline(reader, *snapshot);
            else
                decodeJsonSnapshot(reader, *snapshot);
        }
        else
            throw DecodeError(0, "not a memory snapshot: neither a pickle nor JSON (compressed or not)");
        // Reading a compressed stream to its end checks its checksum and catches truncation.
        if (opened.compression != Compression::None)
            reader.drain();
    } catch (const DecodeError &e) {
        const bool compressed = snapshot->facts.compression != Compression::None && e.offset != LoadError::kNoOffset;
        throw LoadError(path, e.offset, compressed ? std::string(e.what()) + " (offset in the decompressed data)" : e.what());
    } catch (const std::bad_alloc &) {
        throw LoadError(path, reader.offset(), "out of memory while decoding");
    }
    malloc_trim(0);
    return snapshot;
}
} // namespace

std::unique_ptr<Snapshot> loadSnapshot(const std::string &path, const LoadControl &control)
{
    return decode(openByteSource(path), path, control);
}

std::unique_ptr<Snapshot> loadSnapshotFromMemory(std::string_view data, const std::string &name)
{
    return decode(openMemorySource(data, name), name, {});
}

} // namespace memlens
