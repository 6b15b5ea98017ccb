// libFuzzer target for what memlens reads back from its own cache: the first byte picks a whole
// entry file (header, key, zstd frame), the answers kept beside an entry, the indexes and
// timeline layouts kept beside it (of a corpus snapshot, and made into an index and a layout
// when they decode), the event columns kept as they are beside an entry (under an entry of a
// corpus snapshot), or a bare payload. Each gives what it holds or nothing; never a crash, a
// hang or an allocation the input does not justify.
#include "cache/IndexSections.h"
#include "cache/StoredColumns.h"
#include "cache/SnapshotCache.h"
#include "cache/SnapshotCodec.h"
#include "cache/StoredAnswers.h"
#include "decode/SnapshotLoader.h"
#include "pipeline/StoredIndexes.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const std::string_view bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
    const memlens::CacheKey key{"/fuzz/snapshot.pickle", 4096, 1, 2, 3, "4096-0000000000000000"};
    if (data[0] & 1) {
        memlens::readCacheEntry(bytes, key);
        return 0;
    }
    if (data[0] & 2) {
        memlens::readAnswersFile(bytes, key, "fuzz-executable");
        return 0;
    }
    if (data[0] & 8) {
        // The entry's own columns (as cache/StoredColumns keeps them), cut where the first four
        // bytes say and each following (offset, byte) pair flipped in: past the pieces' sizes and
        // hashes, not only refused at the first count.
        static const auto run = memlens::loadSnapshot(MEMLENS_CORPUS_DIR "/snapshots/gpt2_fp32_adamw/snapshot.pickle");
        static const std::string entry = memlens::makeCacheEntry(key, *run);
        static const std::string good = memlens::encodeColumns(*run);
        std::string columns = good;
        uint32_t cut = 0;
        if (bytes.size() >= 4) {
            std::memcpy(&cut, bytes.data(), 4);
            columns.resize(std::min<size_t>(columns.size(), cut));
        }
        for (size_t at = 4; at + 5 <= bytes.size() && !columns.empty(); at += 5) {
            uint32_t offset;
            std::memcpy(&offset, bytes.data() + at, 4);
            columns[offset % columns.size()] ^= bytes[at + 4];
        }
        const memlens::MemorySectionBytes source(columns);
        bool refused = false;
        memlens::readCacheEntry(entry, key, &source, &refused);
        return 0;
    }
    if (data[0] & 4) {
        static const auto snapshot = memlens::loadSnapshot(MEMLENS_CORPUS_DIR "/snapshots/streams_pending_free/snapshot.pickle");
        if (auto kept = memlens::decodeIndexes(bytes, *snapshot)) {
            for (auto &[device, parts] : *kept) {
                try {
                    const memlens::DeviceIndex index(*snapshot, device, std::move(parts.index));
                    const memlens::TimelineLayout layout(index, std::move(parts.layout));
                    index.liveAt(index.end());
                    if (index.eventCount() > 0)
                        layout.layout(memlens::EventId(0), memlens::EventId(static_cast<uint32_t>(index.eventCount() - 1)), 7, 5);
                } catch (const std::invalid_argument &) {
                }
            }
        }
        return 0;
    }
    try {
        memlens::decodeSnapshot(bytes);
    } catch (const memlens::CacheFormatError &) {
    } catch (const std::bad_alloc &) {
    }
    return 0;
}
