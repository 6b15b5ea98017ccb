#include "pipeline/StoredLayouts.h"

#include "cache/SideEntry.h"

#include <cstring>
#include <stdexcept>
#include <zstd.h>

namespace memlens {

namespace {

// A 12 M-entry run's layouts are ~6 MB decoded, ~3 MB kept.
constexpr uint64_t kMaxDecodedBytes = 1ull << 30;
constexpr SideEntryKind kLayouts{".layouts", "MLLAYOUT", 512ull << 20};

class Out {
public:
    template <typename T>
    void pod(const T &v)
    {
        bytes_.append(reinterpret_cast<const char *>(&v), sizeof v);
    }
    template <typename T>
    void list(const std::vector<T> &values)
    {
        pod(static_cast<uint64_t>(values.size()));
        bytes_.append(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
    }
    std::string take() { return std::move(bytes_); }

private:
    std::string bytes_;
};

// Every count is checked against the bytes left before anything is allocated.
class In {
public:
    explicit In(std::string_view bytes) : bytes_(bytes) {}
    template <typename T>
    T pod()
    {
        T v;
        take(&v, sizeof v);
        return v;
    }
    template <typename T>
    std::vector<T> list()
    {
        const auto n = pod<uint64_t>();
        if (n > bytes_.size() / sizeof(T))
            throw std::invalid_argument("a count past the end");
        std::vector<T> values(n);
        take(values.data(), n * sizeof(T));
        return values;
    }
    bool done() const { return bytes_.empty(); }

private:
    void take(void *into, size_t n)
    {
        if (n > bytes_.size())
            throw std::invalid_argument("cut short");
        std::memcpy(into, bytes_.data(), n);
        bytes_.remove_prefix(n);
    }
    std::string_view bytes_;
};

std::string compress(const std::string &raw)
{
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx *)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    std::string out(ZSTD_compressBound(raw.size()), '\0');
    const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(n))
        return {};
    out.resize(n);
    return out;
}

std::optional<std::string> decompress(std::string_view frame)
{
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxDecodedBytes ||
        ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
        return std::nullopt;
    std::string raw(static_cast<size_t>(size), '\0');
    const size_t n = ZSTD_decompress(raw.data(), raw.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != raw.size())
        return std::nullopt;
    return raw;
}

} // namespace

std::string encodeLayouts(const std::map<int, std::shared_ptr<const TimelineLayout>> &layouts)
{
    Out out;
    out.pod(static_cast<uint32_t>(layouts.size()));
    for (const auto &[device, layout] : layouts) {
        const TimelineLayoutParts parts = layout->parts();
        out.pod(static_cast<int32_t>(device));
        out.pod(parts.leaves);
        out.pod(static_cast<uint64_t>(parts.tree.size()));
        for (const auto &node : parts.tree)
            out.list(node);
        out.list(parts.blockPeak);
        out.list(parts.ghostFrees);
        out.pod(parts.ghostTotal);
        out.list(parts.defaultPoolGhostFrees);
        out.pod(parts.defaultPoolGhostTotal);
    }
    return compress(out.take());
}

std::optional<LayoutPartsByDevice> decodeLayouts(std::string_view bytes)
{
    const std::optional<std::string> raw = decompress(bytes);
    if (!raw)
        return std::nullopt;
    try {
        In in(*raw);
        LayoutPartsByDevice byDevice;
        const auto devices = in.pod<uint32_t>();
        for (uint32_t d = 0; d < devices; ++d) {
            const auto device = in.pod<int32_t>();
            TimelineLayoutParts parts;
            parts.leaves = in.pod<uint32_t>();
            const auto nodes = in.pod<uint64_t>();
            // Each node takes at least its count's 8 bytes.
            if (nodes > raw->size() / sizeof(uint64_t))
                return std::nullopt;
            parts.tree.resize(nodes);
            for (auto &node : parts.tree)
                node = in.list<AllocationId>();
            parts.blockPeak = in.list<uint32_t>();
            parts.ghostFrees = in.list<std::pair<EventId, uint64_t>>();
            parts.ghostTotal = in.pod<uint64_t>();
            parts.defaultPoolGhostFrees = in.list<std::pair<EventId, uint64_t>>();
            parts.defaultPoolGhostTotal = in.pod<uint64_t>();
            if (!byDevice.emplace(device, std::move(parts)).second)
                return std::nullopt;
        }
        if (!in.done())
            return std::nullopt;
        return byDevice;
    } catch (const std::invalid_argument &) {
        return std::nullopt;
    }
}

std::optional<LayoutPartsByDevice> readStoredLayouts(const SnapshotCache &cache, const CacheKey &key)
{
    const std::optional<std::string> payload = readSideEntry(cache, kLayouts, key);
    return payload ? decodeLayouts(*payload) : std::nullopt;
}

bool storeLayouts(const SnapshotCache &cache, const CacheKey &key, const std::map<int, std::shared_ptr<const TimelineLayout>> &layouts)
{
    const std::string encoded = encodeLayouts(layouts);
    return !encoded.empty() && writeSideEntry(cache, kLayouts, key, encoded);
}

} // namespace memlens
