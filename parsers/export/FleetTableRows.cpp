#include "export/FleetTableRows.h"

#include "attribution/AllocationSite.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "model/FileKinds.h"
#include "parquet/ParquetFileWriter.h"
#include "pipeline/Document.h"

#include <limits>
#include <unordered_map>

namespace memlens {

namespace {

int64_t signedBytes(uint64_t value)
{
    return static_cast<int64_t>(value); // below kMaxPlausibleBytes, and addresses below 2^63
}

std::optional<int64_t> eventNumber(EventId e)
{
    return e.isNone() ? std::nullopt : std::optional<int64_t>(e.index());
}

// The site text of each stack, found once: many allocations share a stack.
class SiteTexts {
public:
    explicit SiteTexts(const Snapshot &snapshot) : snapshot_(snapshot) {}
    const std::optional<std::string> &of(uint32_t stack)
    {
        auto [it, added] = texts_.try_emplace(stack);
        if (added) {
            const AllocationSite site = allocationSite(snapshot_, stack);
            if (!site.site.isNone())
                it->second = siteText(snapshot_, site);
        }
        return it->second;
    }

private:
    const Snapshot &snapshot_;
    std::unordered_map<uint32_t, std::optional<std::string>> texts_;
};

} // namespace

std::string poolIdText(const std::pair<int64_t, int64_t> &pool)
{
    return std::to_string(pool.first) + "," + std::to_string(pool.second);
}

void writeSnapshotRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    const std::string_view format = kFileFormatNames.name(document.snapshot->facts.format);
    for (const auto &[device, data] : document.devices) {
        const DeviceSummary &s = data.summary;
        out.row()
            .string(file)
            .integer(device)
            .string(s.name)
            .integer(signedBytes(s.entries))
            .integer(signedBytes(s.peakActiveBytes))
            .integer(signedBytes(s.peakReservedBytes))
            .integer(s.peakTimeUs)
            .integer(static_cast<int64_t>(s.ooms.size()))
            .boolean(s.coverage.truncated)
            .integer(signedBytes(s.final.reserved))
            .integer(signedBytes(s.final.allocated))
            .string(format)
            .end();
    }
}

void writeStepRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    for (const auto &[device, data] : document.devices) {
        for (const StepSummary &st : data.summary.steps)
            out.row()
                .string(file)
                .integer(device)
                .integer(st.index)
                .integer(st.startUs)
                .integer(st.endUs)
                .integer(signedBytes(st.peakActiveBytes))
                .integer(signedBytes(st.peakReservedBytes))
                .integer(signedBytes(st.endActiveBytes))
                .boolean(st.partial)
                .end();
    }
}

void writeEventRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    const Snapshot &snapshot = *document.snapshot;
    std::vector<std::string> pools;
    for (const auto &pool : snapshot.pools)
        pools.push_back(poolIdText(pool));
    for (const auto &[device, data] : document.devices) {
        const DeviceIndex &index = *data.index;
        const EventTable &events = index.events();
        size_t nextPool = 0; // the sparse pool column is in event order
        for (size_t i = 0; i < events.count(); ++i) {
            const EventId e(static_cast<uint32_t>(i));
            uint32_t pool = 0;
            while (nextPool < events.pool.size() && events.pool[nextPool].first < i)
                ++nextPool;
            if (nextPool < events.pool.size() && events.pool[nextPool].first == i)
                pool = events.pool[nextPool].second;
            const AllocationId allocation = index.allocationOfEvent(e);
            parquet::RowBuilder row = out.row();
            row.string(file)
                .integer(device)
                .integer(static_cast<int64_t>(i))
                .integer(events.timeUs[i])
                .string(actionName(events.action[i]))
                .integer(signedBytes(events.addr[i]))
                .integer(signedBytes(events.size[i]))
                .integer(signedBytes(snapshot.streams.at(events.stream[i])))
                .string(pools.at(pool))
                .integer(events.stack[i]);
            if (allocation.isNone())
                row.null();
            else
                row.string(categoryName(data.categories->of(allocation)));
            row.end();
        }
    }
}

void writeStackRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    const Snapshot &snapshot = *document.snapshot;
    SiteTexts sites(snapshot);
    for (uint32_t stack = 0; stack < snapshot.stacks.size(); ++stack) {
        const auto frames = snapshot.stacks.at(stack);
        for (size_t depth = 0; depth < frames.size(); ++depth)
            out.row()
                .string(file)
                .integer(stack)
                .integer(static_cast<int64_t>(depth))
                .string(snapshot.frameText(frames[depth]))
                .optionalString(sites.of(stack))
                .end();
    }
}

void writeLiveAtPeakRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    const Snapshot &snapshot = *document.snapshot;
    SiteTexts sites(snapshot);
    for (const auto &[device, data] : document.devices) {
        const DeviceIndex &index = *data.index;
        const auto live = largestLive(index, index.peakIndex(), std::numeric_limits<size_t>::max(), nullptr, data.categories.get());
        for (const LiveBlockInfo &b : live)
            out.row()
                .string(file)
                .integer(device)
                .integer(signedBytes(b.addr))
                .integer(signedBytes(b.size))
                .optionalString(sites.of(b.stack))
                .string(categoryName(b.category))
                .integer(eventNumber(b.allocEvent))
                .end();
    }
}

void writePoolRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out)
{
    for (const auto &[device, data] : document.devices) {
        for (const PoolShare &p : data.summary.poolsAtEnd)
            out.row()
                .string(file)
                .integer(device)
                .string(poolIdText(p.pool))
                .integer(signedBytes(p.segments))
                .integer(signedBytes(p.reserved))
                .integer(signedBytes(p.allocated))
                .end();
    }
}

} // namespace memlens
