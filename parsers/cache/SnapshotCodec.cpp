#include "cache/SnapshotCodec.h"

#include "cache/EncodingStreams.h"
#include "model/EventColumns.h"

#include <cstring>

namespace memlens {

namespace {

using codec::Reader;
using codec::Writer;

constexpr char kSnapshotMagic[8] = {'M', 'L', 'S', 'N', 'A', 'P', '0', '2'};
constexpr size_t kMaxDevices = 4096;

template <typename V>
void writePairs(Writer &w, const SparseColumn<V> &pairs)
{
    w.column(pairs.data(), pairs.size());
}

template <typename V>
void readPairs(Reader &r, SparseColumn<V> &out)
{
    const size_t n = r.count(8);
    out.resize(n);
    for (auto &[a, b] : out) {
        a = r.pod<uint32_t>();
        b = V(r.pod<uint32_t>());
    }
}

// Whether an id read from the cache names a row of a table of `size` rows.
template <typename Id>
bool names(Id id, size_t size)
{
    return id.index() < size;
}

void check(bool ok, const char *what)
{
    if (!ok)
        throw CacheFormatError(what);
}

bool flag(Reader &r)
{
    const auto b = r.pod<uint8_t>();
    check(b <= 1, "a flag that is neither 0 nor 1");
    return b == 1;
}

// Segments, blocks and marks go field by field: their padding and bools are not bytes to trust.
void writeSegment(Writer &w, const Segment &s)
{
    w.pod(static_cast<int32_t>(s.device));
    for (uint64_t v : {s.address, s.totalSize, s.allocatedSize, s.activeSize, s.requestedSize, s.stream})
        w.pod(v);
    w.pod(static_cast<uint8_t>(s.large));
    w.pod(static_cast<uint8_t>(s.expandable));
    w.pod(s.pool.first);
    w.pod(s.pool.second);
    for (uint32_t v : {s.stack.index(), s.firstBlock, s.blockCount})
        w.pod(v);
}

Segment readSegment(Reader &r)
{
    Segment s;
    s.device = r.pod<int32_t>();
    for (uint64_t *v : {&s.address, &s.totalSize, &s.allocatedSize, &s.activeSize, &s.requestedSize, &s.stream})
        *v = r.pod<uint64_t>();
    s.large = flag(r);
    s.expandable = flag(r);
    s.pool.first = r.pod<int64_t>();
    s.pool.second = r.pod<int64_t>();
    s.stack = StackId(r.pod<uint32_t>());
    for (uint32_t *v : {&s.firstBlock, &s.blockCount})
        *v = r.pod<uint32_t>();
    return s;
}
constexpr size_t kSegmentBytes = 4 + 6 * 8 + 2 + 16 + 3 * 4;

void writeBlock(Writer &w, const Block &b)
{
    for (uint64_t v : {b.address, b.size, b.requestedSize})
        w.pod(v);
    w.pod(static_cast<uint8_t>(b.state));
    w.pod(b.stack);
}

Block readBlock(Reader &r)
{
    Block b;
    for (uint64_t *v : {&b.address, &b.size, &b.requestedSize})
        *v = r.pod<uint64_t>();
    const auto state = r.pod<uint8_t>();
    check(state <= static_cast<uint8_t>(BlockState::Unknown), "an unknown block state");
    b.state = static_cast<BlockState>(state);
    b.stack = StackId(r.pod<uint32_t>());
    return b;
}
constexpr size_t kBlockBytes = 3 * 8 + 1 + 4;

void writeMark(Writer &w, const PhaseMark &m)
{
    w.pod(static_cast<int32_t>(m.device));
    w.pod(m.name);
    w.pod(static_cast<uint8_t>(m.start));
    w.pod(m.timeUs);
}

PhaseMark readMark(Reader &r)
{
    PhaseMark m;
    m.device = r.pod<int32_t>();
    m.name = StringId(r.pod<uint32_t>());
    m.start = flag(r);
    m.timeUs = r.pod<int64_t>();
    return m;
}
constexpr size_t kMarkBytes = 4 + 4 + 1 + 8;
constexpr size_t kGapBytes = 4 + 8 + 8;
constexpr size_t kDumpEndBytes = 8 + 8;

} // namespace

bool cacheable(const Snapshot &snapshot)
{
    return !snapshot.categories.has_value();
}

std::string encodeSnapshot(const Snapshot &snapshot)
{
    std::string out;
    encodeSnapshot(snapshot, [&](std::string_view piece, bool) { out.append(piece); });
    return out;
}

uint64_t encodeSnapshot(const Snapshot &s, const EncodingSink &sink)
{
    Writer w(sink);
    for (char c : kSnapshotMagic)
        w.pod(c);
    const FileFacts &f = s.facts;
    w.text(std::string(kFileFormatNames.name(f.format)));
    w.text(std::string(kCompressionNames.name(f.compression)));
    w.pod(static_cast<int32_t>(f.pickleProtocol));
    w.pod(static_cast<int32_t>(f.cpuDevice));
    w.pod(static_cast<int32_t>(f.hostDevice));
    const bool flags[] = {f.hasTimes,           f.hasFrames,         f.hasCompileContext, f.hasUserMetadata, f.hasPhases,
                          f.hasAllocatorSettings, f.legacyBlockHistory, f.legacySegmentList, f.hasPoolIds,     f.hasFxFrames,
                          f.noAddresses};
    for (bool b : flags)
        w.pod(static_cast<uint8_t>(b));
    w.pod(f.malformedMemoryEvents);
    for (uint64_t n : {f.operatorDtypes.fp32, f.operatorDtypes.bf16, f.operatorDtypes.fp16, f.operatorDtypes.cast})
        w.pod(n);
    w.pod(static_cast<uint64_t>(s.strings.size()));
    for (uint32_t id = 1; id < s.strings.size(); ++id) // id 0 is "" in every table
        w.text(s.strings.at(StringId(id)));
    w.pod(static_cast<uint64_t>(s.frames.size()));
    for (uint32_t id = 0; id < s.frames.size(); ++id) {
        const Frame &fr = s.frames.at(FrameId(id));
        w.pod(fr.name);
        w.pod(fr.file);
        w.pod(fr.line);
    }
    w.pod(static_cast<uint64_t>(s.fxFrames.size()));
    for (const auto &[frame, fx] : s.fxFrames) {
        for (uint32_t v : {frame.index(), fx.op.index(), fx.node.index(), fx.target.index(), fx.originalTrace.index()})
            w.pod(v);
    }
    w.pod(static_cast<uint64_t>(s.pools.size()));
    for (const auto &[a, b] : s.pools) {
        w.pod(a);
        w.pod(b);
    }
    w.pod(static_cast<uint64_t>(s.stacks.size()));
    for (uint32_t id = 1; id < s.stacks.size(); ++id) {
        const auto frames = s.stacks.at(StackId(id));
        w.column(frames.data(), frames.size());
    }
    w.column(s.streams.data(), s.streams.size());
    w.pod(static_cast<uint64_t>(s.traces.size()));
    for (const EventTable &t : s.traces) {
        forEachDenseColumn([&](auto column) { w.eventColumn(t.*column); });
        forEachSparseColumn([&](auto column, std::string_view) { writePairs(w, t.*column); });
        forEachTotalsColumn([&](auto column) { w.eventColumn(t.*column); });
    }
    w.pod(static_cast<uint64_t>(s.segments.size()));
    for (const Segment &seg : s.segments)
        writeSegment(w, seg);
    w.pod(static_cast<uint64_t>(s.blocks.size()));
    for (const Block &b : s.blocks)
        writeBlock(w, b);
    w.column(s.implausibleSegments.data(), s.implausibleSegments.size());
    w.pod(static_cast<uint64_t>(s.allocatorSettings.size()));
    for (const auto &[k, v] : s.allocatorSettings) {
        w.text(k);
        w.text(v);
    }
    w.pod(static_cast<uint64_t>(s.phaseMarks.size()));
    for (const PhaseMark &m : s.phaseMarks)
        writeMark(w, m);
    w.pod(static_cast<uint64_t>(s.gaps.size()));
    for (const TraceGap &g : s.gaps) {
        w.pod(static_cast<int32_t>(g.device));
        w.pod(g.fromUs);
        w.pod(g.toUs);
    }
    w.pod(static_cast<uint64_t>(s.dumpEnds.size()));
    for (const DumpEnd &d : s.dumpEnds) {
        w.pod(d.timeUs);
        w.pod(d.iteration);
    }
    return w.finish();
}

namespace {

// The sizes of the tables later parts refer to, for their checks.
struct TableSizes {
    size_t strings = 0, frames = 0, pools = 0, stacks = 0, streams = 0;
};

void readFacts(Reader &r, FileFacts &f)
{
    const auto format = kFileFormatNames.find(r.text());
    check(format.has_value(), "an unknown file format");
    f.format = *format;
    const auto compression = kCompressionNames.find(r.text());
    check(compression.has_value(), "an unknown compression");
    f.compression = *compression;
    f.pickleProtocol = r.pod<int32_t>();
    f.cpuDevice = r.pod<int32_t>();
    f.hostDevice = r.pod<int32_t>();
    check(f.hostDevice >= -1 && f.hostDevice < static_cast<int>(kMaxDevices), "a host device out of range");
    bool *flags[] = {&f.hasTimes,           &f.hasFrames,          &f.hasCompileContext, &f.hasUserMetadata, &f.hasPhases,
                     &f.hasAllocatorSettings, &f.legacyBlockHistory, &f.legacySegmentList, &f.hasPoolIds,     &f.hasFxFrames,
                     &f.noAddresses};
    for (bool *b : flags)
        *b = flag(r);
    f.malformedMemoryEvents = r.pod<uint64_t>();
    for (uint64_t *n : {&f.operatorDtypes.fp32, &f.operatorDtypes.bf16, &f.operatorDtypes.fp16, &f.operatorDtypes.cast})
        *n = r.pod<uint64_t>();
}

// Strings, frames and FX frames. Interning again rebuilds the lookup maps; a duplicate would
// shift every later id.
void readNames(Reader &r, Snapshot &s, TableSizes &n)
{
    n.strings = r.count(4);
    check(n.strings >= 1, "no string table");
    for (size_t id = 1; id < n.strings; ++id)
        check(s.strings.intern(r.text()) == StringId(static_cast<uint32_t>(id)), "a string is stored twice");
    n.frames = r.count(16);
    for (size_t id = 0; id < n.frames; ++id) {
        Frame fr;
        fr.name = StringId(r.pod<uint32_t>());
        fr.file = StringId(r.pod<uint32_t>());
        fr.line = r.pod<int64_t>();
        check(names(fr.name, n.strings) && names(fr.file, n.strings), "a frame names an unknown string");
        check(s.frames.intern(fr) == FrameId(static_cast<uint32_t>(id)), "a frame is stored twice");
    }
    const size_t fxCount = r.count(5 * 4);
    s.fxFrames.resize(fxCount);
    for (auto &[frame, fx] : s.fxFrames) {
        frame = FrameId(r.pod<uint32_t>());
        for (StringId *v : {&fx.op, &fx.node, &fx.target, &fx.originalTrace})
            *v = StringId(r.pod<uint32_t>());
        check(names(frame, n.frames) && names(fx.op, n.strings) && names(fx.node, n.strings) && names(fx.target, n.strings) &&
                  names(fx.originalTrace, n.strings),
              "an FX frame names an unknown frame or string");
    }
    for (size_t i = 1; i < fxCount; ++i)
        check(s.fxFrames[i - 1].first < s.fxFrames[i].first, "FX frames out of order");
}

// Pools, stacks and streams.
void readTables(Reader &r, Snapshot &s, TableSizes &n)
{
    n.pools = r.count(16);
    check(n.pools >= 1, "no default pool");
    s.pools.resize(n.pools);
    for (auto &[a, b] : s.pools) {
        a = r.pod<int64_t>();
        b = r.pod<int64_t>();
    }
    check(s.pools.front() == std::pair<int64_t, int64_t>{0, 0}, "the first pool is not the default pool");
    n.stacks = r.count(8);
    check(n.stacks >= 1, "no stack table");
    PodArray<FrameId> ids; // stored as their indices
    for (size_t id = 1; id < n.stacks; ++id) {
        r.column(ids);
        for (FrameId frame : std::span<const FrameId>(ids.data(), ids.size()))
            check(frame.index() < n.frames, "a stack names an unknown frame");
        check(s.stacks.intern(std::span<const FrameId>(ids.data(), ids.size())) == StackId(static_cast<uint32_t>(id)), "a stack is stored twice");
    }
    n.streams = r.count(8);
    s.streams.resize(n.streams);
    for (uint64_t &v : s.streams)
        v = r.pod<uint64_t>();
}

// One device's entries: the columns, then the sparse notes (in entry order, naming known
// entries, strings and pools), then the allocator's totals when the file had them.
void readTrace(Reader &r, EventTable &t, const TableSizes &n)
{
    forEachDenseColumn([&](auto column) { r.eventColumn(t.*column); });
    const size_t count = t.action.size();
    forEachDenseColumn([&](auto column) { check((t.*column).size() == count, "trace columns of different lengths"); });
    forEachSparseColumn([&](auto column, std::string_view what) {
        auto &pairs = t.*column;
        readPairs(r, pairs);
        constexpr bool pools = std::is_same_v<typename std::remove_cvref_t<decltype(pairs)>::value_type::second_type, PoolIndex>;
        const size_t ids = pools ? n.pools : n.strings;
        const std::string unknown = std::string(what) + (pools ? " on an unknown entry or pool" : " on an unknown entry or string");
        for (const auto &[event, id] : pairs)
            check(event < count && names(id, ids), unknown.c_str());
        // Lookups binary-search these columns: they must be in entry order.
        for (size_t i = 1; i < pairs.size(); ++i)
            check(pairs[i - 1].first < pairs[i].first, "notes out of entry order");
    });
    forEachTotalsColumn([&](auto column) {
        r.eventColumn(t.*column);
        check((t.*column).empty() || (t.*column).size() == count, "allocator totals of another length");
    });
}

// The final segments and blocks, and the segments whose sizes were implausible.
void readFinalState(Reader &r, Snapshot &s, const TableSizes &n)
{
    const size_t segments = r.count(kSegmentBytes);
    s.segments.resize(segments);
    for (Segment &seg : s.segments)
        seg = readSegment(r);
    const size_t blocks = r.count(kBlockBytes);
    s.blocks.resize(blocks);
    for (Block &b : s.blocks) {
        b = readBlock(r);
        check(names(b.stack, n.stacks), "a block names an unknown stack");
    }
    for (const Segment &seg : s.segments) {
        check(seg.device >= 0 && static_cast<size_t>(seg.device) < kMaxDevices && names(seg.stack, n.stacks), "a segment is inconsistent");
        check(seg.firstBlock <= blocks && seg.blockCount <= blocks - seg.firstBlock, "a segment's blocks are missing");
    }
    PodArray<SegmentId> implausible; // stored as their indices
    r.column(implausible);
    for (size_t i = 0; i < implausible.size(); ++i)
        check(implausible[i].index() < segments && (i == 0 || implausible[i - 1] < implausible[i]), "an unknown implausible segment");
    s.implausibleSegments.assign(implausible.begin(), implausible.end());
}

// Allocator settings, phase marks, the gaps between stitched dumps and where the dumps ended.
void readSettingsMarksGaps(Reader &r, Snapshot &s, const TableSizes &n)
{
    const size_t settings = r.count(8);
    s.allocatorSettings.resize(settings);
    for (auto &[k, v] : s.allocatorSettings) {
        k = r.text();
        v = r.text();
    }
    const size_t marks = r.count(kMarkBytes);
    s.phaseMarks.resize(marks);
    for (PhaseMark &m : s.phaseMarks) {
        m = readMark(r);
        check(names(m.name, n.strings) && m.device >= 0 && static_cast<size_t>(m.device) < kMaxDevices, "a phase mark is inconsistent");
    }
    s.gaps.resize(r.count(kGapBytes));
    for (TraceGap &g : s.gaps) {
        g.device = r.pod<int32_t>();
        g.fromUs = r.pod<int64_t>();
        g.toUs = r.pod<int64_t>();
        check(g.device >= 0 && static_cast<size_t>(g.device) < kMaxDevices && g.fromUs <= g.toUs, "a trace gap is inconsistent");
    }
    s.dumpEnds.resize(r.count(kDumpEndBytes));
    for (size_t i = 0; i < s.dumpEnds.size(); ++i) {
        s.dumpEnds[i].timeUs = r.pod<int64_t>();
        s.dumpEnds[i].iteration = r.pod<int64_t>();
        check(i == 0 || s.dumpEnds[i - 1].timeUs <= s.dumpEnds[i].timeUs, "dump ends out of order");
    }
}

// The entries' own values, once every column has arrived.
void checkEntries(const Snapshot &s, const TableSizes &n)
{
    for (const EventTable &t : s.traces) {
        for (size_t e = 0; e < t.count(); ++e) {
            check(static_cast<int>(t.action[e]) < kActionCount, "an unknown action");
            check(names(t.stream[e], n.streams) && names(t.stack[e], n.stacks), "an entry names an unknown stream or stack");
        }
        for (const auto &[event, text] : t.implausibleSizes)
            check(t.size[event] == 0, "an implausible size with a size");
    }
}

} // namespace

std::unique_ptr<Snapshot> decodeSnapshot(std::string_view bytes)
{
    struct Memory final : PayloadSource {
        std::string_view bytes;
        size_t at = 0;
        void read(char *into, size_t n) override
        {
            std::memcpy(into, bytes.data() + at, n);
            at += n;
        }
    } memory;
    memory.bytes = bytes;
    return decodeSnapshot(bytes.size(), memory);
}

std::unique_ptr<Snapshot> decodeSnapshot(uint64_t size, PayloadSource &source)
{
    Reader r(size, source);
    for (char c : kSnapshotMagic)
        check(r.pod<char>() == c, "not a memlens snapshot cache");
    auto s = std::make_unique<Snapshot>();
    // Declared after the snapshot, so that on an error its columns are left alone before they are freed.
    struct Abandon {
        PayloadSource &source;
        ~Abandon() { source.abandon(); }
    } abandon{source};
    TableSizes n;
    readFacts(r, s->facts);
    readNames(r, *s, n);
    readTables(r, *s, n);
    const size_t devices = r.count(6 * 8);
    check(devices <= kMaxDevices, "too many devices");
    s->traces.resize(devices);
    for (EventTable &t : s->traces)
        readTrace(r, t, n);
    readFinalState(r, *s, n);
    readSettingsMarksGaps(r, *s, n);
    check(r.atEnd(), "bytes after the end");
    r.settle();
    checkEntries(*s, n);
    return s;
}

} // namespace memlens
