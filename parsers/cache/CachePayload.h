#pragma once
// The compressed payload of a cache entry: the snapshot's encoding as a sequence of zstd
// frames, each with a content checksum. Small records share one frame after another; every
// large event column is a frame of its own, so that reading an entry decompresses (and first
// touches the memory of) the columns on both cores.
#include "cache/IndexSections.h"
#include "cache/SnapshotCodec.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

struct ZSTD_DCtx_s;

namespace memlens {

// Compresses `snapshot`'s encoding and hands it to `out` in pieces;
// false when `out` refused one or compression failed.
bool writePayload(const Snapshot &snapshot, const std::function<bool(std::string_view)> &out);

// Reads a payload for decodeSnapshot(). Column frames are decompressed by a second thread,
// and by this one once it waits for them in settle(). Given the columns as they are
// (StoredColumns), each column is mapped or read from there, checked, and decompressed from its
// frame only where they do not hold it.
class PayloadReader final : public PayloadSource {
public:
    explicit PayloadReader(std::string_view compressed, const SectionBytes *rawColumns = nullptr);
    ~PayloadReader() override;
    PayloadReader(const PayloadReader &) = delete;
    PayloadReader &operator=(const PayloadReader &) = delete;

    void read(char *into, size_t n) override;
    void readColumn(char *into, size_t n, bool ownMapping) override;
    void settle() override;
    void abandon() override;
    // After decoding: the last frame is complete, checksum included, and nothing follows it.
    bool endsCleanly();
    // After settle(): the columns given as they are did not hold every column, or held more.
    bool rawColumnsRefused() const { return rawRefused_ || (raw_ && !raw_->done()); }

private:
    struct Column {
        std::string_view frame;
        char *into;
        size_t size;
        std::vector<SectionReader::Job> raw; // its pieces as they are, when given
    };
    bool placeRaw(const Column &column);
    void endFrame();
    void work();
    bool takeColumn(Column &column);

    std::string_view compressed_;
    size_t at_ = 0;           // next compressed byte of the shared frames
    ZSTD_DCtx_s *stream_;     // the current shared frame
    bool inFrame_ = false;
    size_t lastResult_ = 0;   // 0 once the current shared frame is complete
    std::vector<Column> columns_;
    size_t nextColumn_ = 0;
    bool noMoreColumns_ = false;
    std::atomic<bool> failed_{false};
    std::optional<SectionReader> raw_;
    std::atomic<bool> rawRefused_{false};
    std::mutex mutex_;
    std::condition_variable changed_;
    std::thread worker_;
};

} // namespace memlens
