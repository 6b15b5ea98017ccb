#include "export/FleetTableRows.h"

#include "attribution/AllocationSite.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "model/FileKinds.h"
#include "parquet/ParquetFileWriter.h"
#include "figures/SnapshotSummary.h"

#include <algorithm>
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
    // A stackless block autograd's thread made has a site of its own (summary --json's).
    std::optional<std::string> of(StackId stack, bool autogradThread)
    {
        if (autogradThread)
            return siteText(snapshot_, allocationSite(snapshot_, stack, true));
        return of(stack);
    }
    const std::optional<std::string> &of(StackId stack)
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
    std::unordered_map<StackId, std::optional<std::string>> texts_;
};

} // namespace

std::string poolIdText(const std::pair<int64_t, int64_t> &pool)
{
    return std::to_string(pool.first) + "," + std::to_string(pool.second);
}

void writeSnapshotRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    const std::string_view format = kFileFormatNames.name(source.snapshot->facts.format);
    for (const FleetDevice &d : source.devices) {
        const DeviceSummary &s = *d.summary;
        parquet::RowBuilder row = out.row();
        row
            .string(file)
            .integer(d.device)
            .string(s.name)
            .integer(signedBytes(s.entries))
            .integer(signedBytes(s.peakActiveBytes))
            .integer(signedBytes(s.peakReservedBytes))
            .integer(s.peakTimeUs)
            .integer(static_cast<int64_t>(s.ooms.size()))
            .boolean(s.coverage.truncated)
            .integer(signedBytes(s.final.reserved))
            .integer(signedBytes(s.final.allocated))
            .string(format);
        for (uint64_t bytes : s.categoryBytesAtPeak) // in Category order, as the columns are
            row.integer(signedBytes(bytes));
        row.end();
    }
}

void writeLayerRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    for (const FleetDevice &d : source.devices) {
        if (!d.summary->layers)
            continue;
        const LayersSummary &l = *d.summary->layers;
        for (const auto &[pass, figures] : {std::pair{"forward", &l.forward}, std::pair{"backward", &l.backward}}) {
            for (const LayerPassFigures &f : *figures)
                out.row()
                    .string(file)
                    .integer(d.device)
                    .integer(f.layer)
                    .string(pass)
                    .integer(l.pass)
                    .integer(f.first.index())
                    .integer(f.end.index())
                    .integer(signedBytes(f.peakBytes))
                    .integer(signedBytes(f.retainedBytes))
                    .integer(signedBytes(f.unfreedBytes))
                    .integer(signedBytes(f.transientBytes))
                    .integer(signedBytes(f.largestBytes))
                    .integer(signedBytes(f.atPeakBytes))
                    .end();
        }
    }
}

void writeStepRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    for (const FleetDevice &d : source.devices) {
        for (const StepSummary &st : d.summary->steps)
            out.row()
                .string(file)
                .integer(d.device)
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

namespace {

// One device's events [first, first + count) appended to the events table's columns, in the
// order fleetTableColumns(FleetTable::Events) lists them. Dictionary ids of the few actions,
// pools and categories are found once per batch, not per row.
class EventBatch {
public:
    EventBatch(const FleetSource &source, const FleetDevice &device, const std::string &file, const std::vector<std::string> &pools)
        : source_(source), device_(device), file_(file), pools_(pools)
    {
    }

    void append(parquet::ParquetFileWriter &out, size_t first, size_t count)
    {
        const EventTable &events = device_.index->events();
        const size_t end = first + count;
        repeat(out.column(0).indices, out.column(0).intern(file_), count);
        repeat(out.column(1).integers, device_.device, count);
        for (size_t i = first; i < end; ++i)
            out.column(2).integers.push_back(static_cast<int64_t>(i));
        out.column(3).integers.insert(out.column(3).integers.end(), events.timeUs.begin() + first, events.timeUs.begin() + end);
        appendActions(out.column(4), events, first, end);
        for (size_t i = first; i < end; ++i) {
            out.column(5).integers.push_back(signedBytes(events.addr[i]));
            out.column(6).integers.push_back(signedBytes(events.size[i]));
            out.column(7).integers.push_back(signedBytes(source_.snapshot->streams.at(events.stream[i].index())));
            out.column(9).integers.push_back(events.stack[i].index());
        }
        appendPools(out.column(8), events, first, end);
        appendCategories(out.column(10), first, end);
        for (size_t c = 0; c < fleetTableColumns(FleetTable::Events).size(); ++c)
            out.column(c).rows += count;
    }

private:
    static void repeat(auto &column, auto value, size_t count) { column.insert(column.end(), count, value); }

    void appendActions(parquet::ColumnValues &column, const EventTable &events, size_t first, size_t end)
    {
        std::array<uint32_t, kActionCount> ids;
        ids.fill(UINT32_MAX);
        for (size_t i = first; i < end; ++i) {
            uint32_t &id = ids[static_cast<size_t>(events.action[i])];
            if (id == UINT32_MAX)
                id = column.intern(actionName(events.action[i]));
            column.indices.push_back(id);
        }
    }

    void appendPools(parquet::ColumnValues &column, const EventTable &events, size_t first, size_t end)
    {
        const auto &sparse = events.pool; // (event, pool) where not the default pool, by event
        auto next = sparseFrom(sparse, static_cast<uint32_t>(first));
        std::unordered_map<PoolIndex, uint32_t> ids;
        for (size_t i = first; i < end; ++i) {
            PoolIndex pool(0);
            if (next != sparse.end() && next->first == i)
                pool = (next++)->second;
            auto [it, added] = ids.try_emplace(pool, 0);
            if (added)
                it->second = column.intern(pools_.at(pool.index()));
            column.indices.push_back(it->second);
        }
    }

    void appendCategories(parquet::ColumnValues &column, size_t first, size_t end)
    {
        std::array<uint32_t, kCategoryCount> ids;
        ids.fill(UINT32_MAX);
        for (size_t i = first; i < end; ++i) {
            const AllocationId allocation = device_.index->allocationOfEvent(EventId(static_cast<uint32_t>(i)));
            column.present.push_back(allocation.isNone() ? 0 : 1);
            if (allocation.isNone())
                continue;
            const Category category = device_.categories->of(allocation);
            uint32_t &id = ids[static_cast<size_t>(category)];
            if (id == UINT32_MAX)
                id = column.intern(categoryName(category));
            column.indices.push_back(id);
        }
    }

    const FleetSource &source_;
    const FleetDevice &device_;
    const std::string &file_;
    const std::vector<std::string> &pools_;
};

} // namespace

void writeEventRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    std::vector<std::string> pools;
    for (const auto &pool : source.snapshot->pools)
        pools.push_back(poolIdText(pool));
    for (const FleetDevice &d : source.devices) {
        EventBatch batch(source, d, file, pools);
        const size_t count = d.index->eventCount();
        for (size_t first = 0; first < count;) {
            const size_t take = std::min(out.roomInRowGroup(), count - first);
            batch.append(out, first, take);
            out.commitRows(take);
            first += take;
        }
    }
}

void writeStackRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    const Snapshot &snapshot = *source.snapshot;
    SiteTexts sites(snapshot);
    for (uint32_t i = 0; i < snapshot.stacks.size(); ++i) {
        const StackId stack(i);
        const auto frames = snapshot.stacks.at(stack);
        for (size_t depth = 0; depth < frames.size(); ++depth)
            out.row()
                .string(file)
                .integer(stack.index())
                .integer(static_cast<int64_t>(depth))
                .string(snapshot.frameText(frames[depth]))
                .optionalString(sites.of(stack))
                .end();
    }
}

void writeLiveAtPeakRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    const Snapshot &snapshot = *source.snapshot;
    SiteTexts sites(snapshot);
    for (const FleetDevice &d : source.devices) {
        const DeviceIndex &index = *d.index;
        const auto live = largestLive(index, index.peak(), std::numeric_limits<size_t>::max(), nullptr, d.categories);
        const ModuleUnits *units = d.summary->units.get();
        for (const LiveBlockInfo &b : live) {
            const int32_t unit = units ? units->unitOf(b.allocation) : ModuleUnits::kOutside;
            out.row()
                .string(file)
                .integer(d.device)
                .integer(signedBytes(b.addr))
                .integer(signedBytes(b.size))
                .optionalString(sites.of(b.stack, b.autogradThread))
                .string(categoryName(b.category))
                .integer(eventNumber(b.allocEvent))
                .optionalString(unit < 0 ? std::nullopt : std::optional<std::string>(units->names()[size_t(unit)]))
                .end();
        }
    }
}

void writePoolRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    for (const FleetDevice &d : source.devices) {
        for (const PoolShare &p : d.summary->poolsAtEnd)
            out.row()
                .string(file)
                .integer(d.device)
                .string(poolIdText(p.pool))
                .integer(signedBytes(p.segments))
                .integer(signedBytes(p.reserved))
                .integer(signedBytes(p.allocated))
                .end();
    }
}

} // namespace memlens
