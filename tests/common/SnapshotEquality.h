#pragma once
// Two snapshots compared field by field, for tests that check a copy (the cache's) is the same.
#include "model/Snapshot.h"

#include <QString>
#include <algorithm>
#include <cstring>

namespace memlens {

template <typename T>
inline bool same(const PodArray<T> &a, const PodArray<T> &b)
{
    return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Every field of two snapshots, compared; the first difference, or "".
inline QString difference(const Snapshot &a, const Snapshot &b)
{
    const FileFacts &f = a.facts, &g = b.facts;
    if (f.format != g.format || f.compression != g.compression || f.pickleProtocol != g.pickleProtocol || f.cpuDevice != g.cpuDevice ||
        f.hasTimes != g.hasTimes || f.hasFrames != g.hasFrames || f.hasCompileContext != g.hasCompileContext ||
        f.hasUserMetadata != g.hasUserMetadata || f.hasPhases != g.hasPhases || f.hasAllocatorSettings != g.hasAllocatorSettings ||
        f.legacyBlockHistory != g.legacyBlockHistory || f.legacySegmentList != g.legacySegmentList || f.hostDevice != g.hostDevice ||
        f.hasPoolIds != g.hasPoolIds || f.hasFxFrames != g.hasFxFrames)
        return "facts";
    if (a.strings.size() != b.strings.size())
        return "string count";
    for (uint32_t i = 0; i < a.strings.size(); ++i)
        if (a.strings.at(i) != b.strings.at(i))
            return QString("string %1").arg(i);
    if (a.frames.size() != b.frames.size())
        return "frame count";
    for (uint32_t i = 0; i < a.frames.size(); ++i)
        if (!(a.frames.at(i) == b.frames.at(i)))
            return QString("frame %1").arg(i);
    if (a.stacks.size() != b.stacks.size())
        return "stack count";
    for (uint32_t i = 0; i < a.stacks.size(); ++i) {
        const auto x = a.stacks.at(i), y = b.stacks.at(i);
        if (!std::equal(x.begin(), x.end(), y.begin(), y.end()))
            return QString("stack %1").arg(i);
    }
    if (a.streams != b.streams)
        return "streams";
    if (a.traces.size() != b.traces.size())
        return "device count";
    for (size_t d = 0; d < a.traces.size(); ++d) {
        const EventTable &x = a.traces[d], &y = b.traces[d];
        if (!same(x.action, y.action) || !same(x.addr, y.addr) || !same(x.size, y.size) || !same(x.stream, y.stream) ||
            !same(x.timeUs, y.timeUs) || !same(x.stack, y.stack) || x.otherNames != y.otherNames || x.compileContext != y.compileContext ||
            x.userMetadata != y.userMetadata || x.internalMetadata != y.internalMetadata || x.forwardFrames != y.forwardFrames ||
            x.pool != y.pool || x.implausibleSizes != y.implausibleSizes || !same(x.allocatedAfter, y.allocatedAfter) ||
            !same(x.reservedAfter, y.reservedAfter))
            return QString("trace of device %1").arg(d);
    }
    if (a.segments.size() != b.segments.size())
        return "segment count";
    for (size_t i = 0; i < a.segments.size(); ++i) {
        const Segment &x = a.segments[i], &y = b.segments[i];
        if (x.device != y.device || x.address != y.address || x.totalSize != y.totalSize || x.allocatedSize != y.allocatedSize ||
            x.activeSize != y.activeSize || x.requestedSize != y.requestedSize || x.stream != y.stream || x.large != y.large ||
            x.expandable != y.expandable || x.pool != y.pool || x.stack != y.stack || x.firstBlock != y.firstBlock || x.blockCount != y.blockCount)
            return QString("segment %1").arg(i);
    }
    if (a.blocks.size() != b.blocks.size())
        return "block count";
    for (size_t i = 0; i < a.blocks.size(); ++i) {
        const Block &x = a.blocks[i], &y = b.blocks[i];
        if (x.address != y.address || x.size != y.size || x.requestedSize != y.requestedSize || x.state != y.state || x.stack != y.stack)
            return QString("block %1").arg(i);
    }
    if (a.pools != b.pools)
        return "pools";
    if (a.fxFrames.size() != b.fxFrames.size())
        return "FX frame count";
    for (size_t i = 0; i < a.fxFrames.size(); ++i) {
        const auto &[fa, x] = a.fxFrames[i];
        const auto &[fb, y] = b.fxFrames[i];
        if (fa != fb || x.op != y.op || x.node != y.node || x.target != y.target || x.originalTrace != y.originalTrace)
            return QString("FX frame %1").arg(i);
    }
    if (a.implausibleSegments != b.implausibleSegments)
        return "implausible segments";
    if (a.allocatorSettings != b.allocatorSettings)
        return "allocator settings";
    if (a.phaseMarks.size() != b.phaseMarks.size())
        return "phase mark count";
    for (size_t i = 0; i < a.phaseMarks.size(); ++i) {
        const PhaseMark &x = a.phaseMarks[i], &y = b.phaseMarks[i];
        if (x.device != y.device || x.name != y.name || x.start != y.start || x.timeUs != y.timeUs)
            return QString("phase mark %1").arg(i);
    }
    return {};
}

} // namespace memlens
