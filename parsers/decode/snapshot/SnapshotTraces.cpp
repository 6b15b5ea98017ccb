#include "decode/snapshot/SnapshotAssembler.h"

#include <algorithm>

// Splitting the staged entry rows into one EventTable per device, the host's included.
namespace memlens {

int SnapshotAssembler::hostDeviceFor(const Value *deviceTraces, const Value *hostSegments, const Value *hostTraces) const
{
    auto nonEmpty = [&](const Value *list) {
        return list && list->kind == Kind::Node && arena_.at(list->u).kind != NodeKind::Dict &&
               (!arena_.at(list->u).items.empty() || arena_.at(list->u).entryCount > 0);
    };
    if (!nonEmpty(hostSegments) && !nonEmpty(hostTraces))
        return -1;
    int next = deviceTraces && deviceTraces->kind == Kind::Node ? static_cast<int>(arena_.at(deviceTraces->u).items.size()) : 0;
    for (const Segment &seg : out_.segments)
        next = std::max(next, seg.device + 1);
    if (next > 4095)
        notSnapshot("no device number left for host memory");
    return next;
}

std::vector<uint32_t> SnapshotAssembler::traceLists(const Value *deviceTraces, const Value *hostTraces, int hostDevice)
{
    std::vector<uint32_t> lists;
    if (deviceTraces) {
        if (deviceTraces->kind != Kind::Node)
            notSnapshot("device_traces is not a list");
        const Node &all = arena_.at(deviceTraces->u);
        if (all.items.size() > 4096)
            notSnapshot("device_traces lists more than 4096 devices");
        for (size_t d = 0; d < all.items.size(); ++d) {
            const Value trace = all.items[d];
            if (trace.kind != Kind::Node || arena_.at(trace.u).kind == NodeKind::Dict)
                notSnapshot("device_traces[" + std::to_string(d) + "] is not a list");
            lists.push_back(trace.u);
        }
    }
    if (hostDevice >= 0 && hostTraces) {
        if (hostTraces->kind != Kind::Node || arena_.at(hostTraces->u).kind == NodeKind::Dict)
            notSnapshot("host_traces is not a list");
        lists.resize(static_cast<size_t>(hostDevice) + 1, UINT32_MAX);
        lists[static_cast<size_t>(hostDevice)] = hostTraces->u;
    }
    return lists;
}

void SnapshotAssembler::convertTraces(const std::vector<uint32_t> &lists)
{
    std::vector<std::vector<uint32_t>> rowsOf(lists.size());
    std::vector<std::pair<uint32_t, uint32_t>> runs(lists.size(), {0, 0});
    for (size_t d = 0; d < lists.size(); ++d) {
        const uint32_t tid = lists[d];
        if (tid == UINT32_MAX)
            continue;
        runs[d] = {arena_.at(tid).entryFirst, arena_.at(tid).entryCount};
        for (size_t i = 0; i < arena_.at(tid).items.size(); ++i) {
            const Value e = arena_.at(tid).items[i];
            if (e.kind == Kind::Entry)
                rowsOf[d].push_back(e.u);
            else if (e.kind == Kind::Node && arena_.at(e.u).kind == NodeKind::Dict && !arena_.at(e.u).converted)
                rowsOf[d].push_back(convertEntry(arena_.at(e.u).items.data(), arena_.at(e.u).items.size()));
            else
                notSnapshot("the trace of " + std::to_string(d) + " holds something that is not a trace entry");
        }
    }
    out_.traces.assign(lists.size(), EventTable{});
    // The usual case, one device whose rows are all the staged rows in order: no copy.
    if (lists.size() == 1 && rowsOf[0].empty() && runs[0].first == 0 && runs[0].second == staged_.count()) {
        out_.traces[0] = std::move(staged_);
        return;
    }
    auto sparseFor = []<typename V>(const SparseColumn<V> &column, uint32_t row, SparseColumn<V> &into, uint32_t newRow) {
        const auto it = sparseFrom(column, row);
        if (it != column.end() && it->first == row)
            into.emplace_back(newRow, it->second);
    };
    for (size_t d = 0; d < rowsOf.size(); ++d) {
        std::vector<uint32_t> rows;
        for (uint32_t r = 0; r < runs[d].second; ++r)
            rows.push_back(runs[d].first + r);
        rows.insert(rows.end(), rowsOf[d].begin(), rowsOf[d].end());
        EventTable &t = out_.traces[d];
        for (uint32_t r : rows) {
            const auto newRow = static_cast<uint32_t>(t.count());
            t.action.push_back(staged_.action[r]);
            t.addr.push_back(staged_.addr[r]);
            t.size.push_back(staged_.size[r]);
            t.stream.push_back(staged_.stream[r]);
            t.timeUs.push_back(staged_.timeUs[r]);
            t.stack.push_back(staged_.stack[r]);
            sparseFor(staged_.otherNames, r, t.otherNames, newRow);
            sparseFor(staged_.compileContext, r, t.compileContext, newRow);
            sparseFor(staged_.userMetadata, r, t.userMetadata, newRow);
            sparseFor(staged_.internalMetadata, r, t.internalMetadata, newRow);
            sparseFor(staged_.forwardFrames, r, t.forwardFrames, newRow);
            sparseFor(staged_.pool, r, t.pool, newRow);
            sparseFor(staged_.implausibleSizes, r, t.implausibleSizes, newRow);
        }
    }
    staged_ = EventTable{};
}

} // namespace memlens
