// The decoders on files with known content: pickle protocols and opcode forms, shared frame
// lists, numbers at the edges, unknown actions and keys, compression, progress and cancel.
#include "CorpusFiles.h"
#include "PickleDecoding.h"
#include "PickleWriter.h"
#include "SnapshotEquality.h"
#include "SyntheticSnapshot.h"
#include "cache/SnapshotCodec.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "decode/pickle/PickleDecoder.h"
#include "decode/SnapshotLoader.h"
#include "model/InternTables.h"
#include "model/LoadError.h"
#include "model/PodArray.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>
#include <sys/mman.h>
#include <vector>
#include <map>
#include <zlib.h>
#include <zstd.h>

using namespace memlens;

namespace {

SynthSnapshot sample()
{
    SynthSnapshot s;
    s.stacks = {{{"empty_like", "/lib/torch/functional.py", 3504}, {"forward", "/srv/model.py", 42}},
                {{"step", "/lib/torch/optim/adam.py", 178}}};
    s.traces = {{
        {"segment_alloc", 0x10000, 2 << 20, 0, 0, 0},
        {"alloc", 0x10000, 1000, 0, 0, 0},
        {"alloc", 0x10400, 3000, 0, 0, 0},
        {"free_requested", 0x10000, 1000, 0, 0, 1},
        {"free_completed", 0x10000, 1000, 0, 0, 1},
        {"alloc", 0x11000, 500, 0, 7, 1},
        {"user_defined", 0, 0, 0, 0, -1},
        {"oom", 1 << 30, 4 << 20, 0, 0, -1},
    }};
    s.segments = {{0, 0x10000, 0, {{1024, 0, "inactive"}, {3072, 3000, "active_allocated", 0}, {512, 500, "active_allocated", 1}, {(2 << 20) - 4608, 0, "inactive"}}}};
    s.phaseMarks = {{"forward", "START", 1001}, {"forward", "END", 1005}, {"backward", "START", 1006}};
    return s;
}

std::string zstdCompress(const std::string &in)
{
    std::string out(ZSTD_compressBound(in.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
    return out;
}

std::string gzipCompress(const std::string &in)
{
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(in.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

QString differenceOf(const Decoded &a, const Decoded &b)
{
    if (a.error != b.error)
        return QString::fromStdString(a.error + " | " + b.error);
    return a.error.empty() ? difference(*a.snapshot, *b.snapshot) : QString();
}

// The snapshot with its entries read directly and by the stack machine: "" when the two are
// the same to the byte (the cache's encoding: every table and id), else where they differ.
QString directAgainstMachine(std::string_view bytes, DirectEntries &direct)
{
    const Decoded a = decodeWith(openMemorySource(bytes, "x"), PickleTokenizing::OnThisThread);
    const Decoded b = decodeWith(openMemorySource(bytes, "x"), PickleTokenizing::OnThisThread, PickleEntries::ThroughTheMachine);
    direct = a.direct;
    if (b.direct.read != 0)
        return "the machine read entries directly";
    if (!differenceOf(a, b).isEmpty())
        return differenceOf(a, b);
    if (a.error.empty() && encodeSnapshot(*a.snapshot) != encodeSnapshot(*b.snapshot))
        return "encodings";
    return {};
}

// A snapshot whose one device's trace holds what `entries` writes, between MARK and APPENDS.
template <typename Entries>
std::string traceOf(int protocol, Entries entries)
{
    PickleWriter w(protocol);
    w.dict().mark().str("segments").list().str("device_traces").list().list().mark();
    entries(w);
    w.appends().append().setitems();
    return w.finish();
}

// A frame dict; its memo slot.
uint32_t frameDict(PickleWriter &w, const std::string &name, int64_t line)
{
    w.dict();
    const uint32_t slot = w.lastMemo();
    w.mark().str("name").str(name).str("filename").str("/srv/train.py").str("line").integer(line).setitems();
    return slot;
}

PickleWriter &entryStart(PickleWriter &w, const std::string &action, uint64_t addr)
{
    return w.dict().mark().str("action").str(action).str("addr").uinteger(addr).str("size").integer(512).str("stream").integer(0);
}

std::string setting(const Snapshot &s, const std::string &key)
{
    for (const auto &[k, v] : s.allocatorSettings) {
        if (k == key)
            return v;
    }
    return "<missing>";
}

} // namespace

class TestDecoding : public QObject {
    Q_OBJECT

private slots:
    // A large PodArray has the kernel fault in the next pages push_back writes, a step at a time
    // (memory/LargeBuffers.h), and no further: the step's pages are resident before they are
    // written, those past it are not.
    void podArrayFaultsInItsPagesAStepAhead()
    {
        const size_t page = 4096, step = kPopulateBytes / sizeof(uint64_t);
        auto resident = [&](const uint64_t *from, size_t bytes) {
            std::vector<unsigned char> pages(bytes / page);
            if (::mincore(const_cast<uint64_t *>(from), bytes, pages.data()) != 0)
                return -1;
            return static_cast<int>(std::count_if(pages.begin(), pages.end(), [](unsigned char p) { return p & 1; }));
        };
        void *probe = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(probe != MAP_FAILED);
        const bool canPopulate = prefault(probe, page);
        ::munmap(probe, page);
        if (!canPopulate)
            QSKIP("this kernel cannot fault pages in ahead (MADV_POPULATE_WRITE, Linux 5.14)");
        PodArray<uint64_t> a;
        a.reserve(8 * step); // a mapping of its own, nothing written
        QCOMPARE(resident(a.data(), kPopulateBytes), 0);
        a.push_back(1);
        QCOMPARE(resident(a.data(), kPopulateBytes), int(kPopulateBytes / page));
        QCOMPARE(resident(a.data() + step, kPopulateBytes), 0);
        while (a.size() < step + 1)
            a.push_back(a.size() + 1);
        QCOMPARE(resident(a.data() + step, kPopulateBytes), int(kPopulateBytes / page));
        QCOMPARE(resident(a.data() + 2 * step, kPopulateBytes), 0);
        // Past a size set without push_back, from there on.
        a.resizeForOverwrite(5 * step + 7);
        a.push_back(9);
        QCOMPARE(resident(a.data() + 5 * step + page / sizeof(uint64_t), kPopulateBytes - page), int(kPopulateBytes / page) - 1);
        QCOMPARE(resident(a.data() + 7 * step, kPopulateBytes), 0);
        for (size_t i = 0; i <= step; ++i)
            QCOMPARE(a[i], uint64_t(i + 1));
    }

    // A large PodArray grows within the address room its mapping took (its pages stay where
    // they are: moved, each would fault again), and past the room moves once, its elements with
    // it, the old mapping and its room given back.
    void podArrayGrowsInItsRoom()
    {
        const size_t page = 4096;
        auto mapped = [&](const void *at) {
            unsigned char state;
            return ::mincore(const_cast<void *>(at), page, &state) == 0;
        };
        PodArray<uint64_t> a;
        a.reserve(kOwnMappingBytes / sizeof(uint64_t));
        for (uint64_t i = 0; i < 3 * page; ++i)
            a.push_back(i * 7 + 1);
        const uint64_t *first = a.data();
        const size_t room = reservedLength(kOwnMappingBytes);
        QVERIFY(room > 2 * kOwnMappingBytes);
        a.reserve(room / sizeof(uint64_t) / 2);
        QCOMPARE(a.data(), first);
        a.resizeForOverwrite(room / sizeof(uint64_t) / 2);
        a.back() = 5; // usable now
        a.reserve(room / sizeof(uint64_t) + 1);
        QVERIFY(a.data() != first);
        QVERIFY(!mapped(first));
        QVERIFY(!mapped(reinterpret_cast<const char *>(first) + room - page));
        for (uint64_t i = 0; i < 3 * page; ++i)
            QCOMPARE(a[i], i * 7 + 1);
        QCOMPARE(a.back(), uint64_t(5));
        // A count whose bytes, rounded to pages, would wrap is refused, not taken as room.
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, a.reserve(SIZE_MAX / sizeof(uint64_t)));
        QCOMPARE(a.back(), uint64_t(5));
    }

    // An array asked to be a mapping of its own is one from its first element, whatever its
    // element's size (24 bytes does not divide kOwnMappingBytes), and stays in place as it grows
    // past where one from malloc would have been copied into a mapping.
    void podArrayReservesItsOwnMapping()
    {
        struct Triple {
            uint64_t a, b, c;
        };
        static_assert(kOwnMappingBytes % sizeof(Triple) != 0);
        PodArray<Triple> a;
        a.reserveOwnMapping();
        QVERIFY(a.ownsMapping());
        QCOMPARE(a.size(), size_t(0));
        const Triple *first = a.data();
        for (uint64_t i = 0; i < 2 * kOwnMappingBytes / sizeof(Triple); ++i)
            a.push_back({i, i + 1, i + 2});
        QCOMPARE(a.data(), first);
        QCOMPARE(a[kOwnMappingBytes / sizeof(Triple)].c, uint64_t(kOwnMappingBytes / sizeof(Triple) + 2));
        // Asked again, larger already: nothing changes.
        a.reserveOwnMapping();
        QCOMPARE(a.data(), first);
        QCOMPARE(a.size(), 2 * kOwnMappingBytes / sizeof(Triple));
    }

    // The decoded columns' container against std::vector through growth, copies, moves and
    // zero-filling resizes on both sides of the size where it switches from malloc to mappings
    // of its own (memory/LargeBuffers.h): the same elements, every new one zero.
    void podArrayAcrossTheMappingThreshold()
    {
        QRandomGenerator random(11);
        PodArray<uint64_t> a;
        std::vector<uint64_t> reference;
        const size_t threshold = kOwnMappingBytes / sizeof(uint64_t);
        auto same = [&](const PodArray<uint64_t> &x) {
            return x.size() == reference.size() && std::equal(x.begin(), x.end(), reference.begin());
        };
        for (int round = 0; round < 60; ++round) {
            switch (random.bounded(6)) {
            case 0: // push past wherever it is
                for (size_t i = 0, n = random.bounded(uint32_t(threshold / 2)); i < n; ++i) {
                    const uint64_t v = random.generate64();
                    a.push_back(v);
                    reference.push_back(v);
                }
                break;
            case 1: { // grow zero-filled, often across the threshold
                const size_t n = reference.size() + random.bounded(uint32_t(threshold));
                a.resize(n);
                reference.resize(n, 0);
                break;
            }
            case 2: { // from empty to large: a fresh mapping, zeroed
                a.clear();
                reference.clear();
                const size_t n = threshold + random.bounded(uint32_t(threshold));
                a.resize(n);
                reference.resize(n, 0);
                break;
            }
            case 3: { // copy, then move back
                PodArray<uint64_t> copy = a;
                QVERIFY(same(copy));
                a = PodArray<uint64_t>();
                a = std::move(copy);
                break;
            }
            case 4: // shrink
                a.resize(reference.size() / 3);
                reference.resize(reference.size() / 3);
                break;
            case 5: { // grow for overwriting, then write every new element
                const size_t from = reference.size(), n = from + random.bounded(uint32_t(threshold));
                a.resizeForOverwrite(n);
                reference.resize(n);
                for (size_t i = from; i < n; ++i)
                    a[i] = reference[i] = i * 7;
                break;
            }
            }
            QVERIFY2(same(a), qPrintable(QString("round %1").arg(round)));
        }
        QVERIFY(reference.size() > 0);
    }

    // The stack table the decoders intern every frame list into: the same frames give the same
    // id, others the next one, across the table's growth; against a std::map.
    void stacksInternedOnceEach()
    {
        StackTable table;
        std::map<std::vector<uint32_t>, uint32_t> reference;
        QCOMPARE(table.intern({}), StackTable::kEmpty);
        QRandomGenerator rng(66);
        std::vector<FrameId> frames;
        for (int n = 0; n < 300000; ++n) {
            // Few frame ids and short lengths: many repeats, prefixes and permutations.
            frames.resize(1 + rng.bounded(6u));
            for (FrameId &f : frames)
                f = FrameId(rng.bounded(n < 150000 ? 40u : 4000u));
            std::vector<uint32_t> key;
            for (FrameId f : frames)
                key.push_back(f.index());
            const auto [it, added] = reference.emplace(key, static_cast<uint32_t>(reference.size() + 1));
            const StackId id = table.intern(frames);
            QCOMPARE(id.index(), it->second);
            if (added) {
                const auto stored = table.at(id);
                QVERIFY(std::equal(stored.begin(), stored.end(), frames.begin(), frames.end()));
            }
        }
        QCOMPARE(table.size(), reference.size() + 1);
        QVERIFY(reference.size() > 100000); // grown many times
    }

    void protocols_data()
    {
        QTest::addColumn<int>("protocol");
        QTest::newRow("2 (BINPUT, as torch's C++ writer)") << 2;
        QTest::newRow("4 (MEMOIZE)") << 4;
        QTest::newRow("5 (Python 3.14 default)") << 5;
    }

    void protocols()
    {
        QFETCH(int, protocol);
        auto snap = loadSnapshotFromMemory(sample().pickle(protocol), "p.pickle");
        QCOMPARE(snap->facts.pickleProtocol, protocol);
        QCOMPARE(snap->devices(), std::vector<int>{0});
        const EventTable &ev = snap->traces.at(0);
        QCOMPARE(ev.count(), size_t(8));
        QCOMPARE(ev.action[0], Action::SegmentAlloc);
        QCOMPARE(ev.action[6], Action::Other);
        QCOMPARE(std::string(snap->strings.at(ev.otherNames.at(0).second)), std::string("user_defined"));
        QCOMPARE(ev.addr[7], uint64_t(1) << 30); // oom: device_free
        QCOMPARE(ev.size[7], uint64_t(4) << 20);
        QCOMPARE(snap->streamValue(ev.stream[5]), uint64_t(7));
        // Frame lists shared through the memo decode to one stack.
        QCOMPARE(ev.stack[1], ev.stack[2]);
        QVERIFY(ev.stack[1] != StackTable::kEmpty);
        QCOMPARE(ev.stack[6], StackTable::kEmpty);
        const auto frames = snap->stacks.at(ev.stack[1]);
        QCOMPARE(frames.size(), size_t(2));
        QCOMPARE(snap->frameText(frames[0]), std::string("functional.py:3504:empty_like"));
        QCOMPARE(std::string(snap->strings.at(snap->frames.at(frames[1]).file)), std::string("/srv/model.py"));
        // Segments and blocks.
        QCOMPARE(snap->segments.size(), size_t(1));
        QCOMPARE(snap->segments[0].totalSize, uint64_t(2) << 20);
        QCOMPARE(snap->blocks.size(), size_t(4));
        QCOMPARE(snap->blocks[1].address, uint64_t(0x10400));
        QCOMPARE(snap->blocks[1].state, BlockState::ActiveAllocated);
        QCOMPARE(snap->blocks[1].stack, ev.stack[1]);
        // BINFLOAT is big-endian; nested settings flatten.
        QCOMPARE(setting(*snap, "garbage_collection_threshold"), std::string("0.5"));
        QCOMPARE(setting(*snap, "max_split_size"), std::string("-1"));
        QCOMPARE(setting(*snap, "PYTORCH_CUDA_ALLOC_CONF"), std::string("expandable_segments:False"));
        // record_function phases pair START/END; an open one has no end.
        const auto ranges = phaseRanges(*snap, 0);
        QCOMPARE(ranges.size(), size_t(2));
        QCOMPARE(ranges[0].name, std::string("forward"));
        QCOMPARE(ranges[0].endUs.value_or(-1), int64_t(1005));
        QVERIFY(!ranges[1].endUs);
    }

    void unsignedAddresses()
    {
        // Python writes ints ≥ 2^63 as 9-byte LONG1.
        PickleWriter w;
        w.dict().mark().str("segments").list().str("device_traces").list().list().mark();
        w.dict().mark().str("action").str("alloc").str("addr").uinteger(0xFFFFFFFFFFFFF000ull).str("size").integer(64);
        w.str("mystery_key").list().mark().integer(1).integer(2).appends().setitems();
        w.appends().append().setitems();
        auto snap = loadSnapshotFromMemory(w.finish(), "u.pickle");
        QCOMPARE(snap->traces.at(0).addr[0], 0xFFFFFFFFFFFFF000ull);
        QCOMPARE(snap->traces.at(0).size[0], uint64_t(64));
    }

    // LONG1 of every length from 1 to 8 bytes, at both ends of its range and between, in
    // entries of one shape (the tokenizer's look-ahead reads them) and in the file's last bytes
    // (its byte-by-byte path): each comes back as the number written.
    void long1OfEveryLength()
    {
        std::vector<int64_t> values;
        for (int n = 1; n <= 8; ++n) {
            const int64_t top = n == 8 ? INT64_MAX : (int64_t(1) << (8 * n - 1)) - 1;
            const int64_t bottom = n == 8 ? INT64_MIN : -(int64_t(1) << (8 * n - 1));
            for (int64_t v : {top, bottom, top / 3, bottom / 3 - 1, int64_t(-1), int64_t(n)})
                values.push_back(v);
        }
        PickleWriter w;
        w.dict().mark().str("device_traces").list().list().mark();
        for (int64_t v : values)
            w.dict().mark().str("action").str("alloc").str("addr").long1(v).str("size").integer(64).setitems();
        w.appends().append().setitems();
        auto snap = loadSnapshotFromMemory(w.finish(), "long1.pickle");
        const EventTable &ev = snap->traces.at(0);
        QCOMPARE(ev.count(), values.size());
        for (size_t i = 0; i < values.size(); ++i)
            QCOMPARE(ev.addr[i], static_cast<uint64_t>(values[i]));
    }

    // The memo keeps containers and strings packed; a hand-made file may memoize numbers too
    // (CPython never does), and they must come back as they went in, also when rewritten.
    void memoizedNumbersComeBack()
    {
        PickleWriter w(2);
        w.dict().mark().str("device_traces").list().list().mark();
        w.dict().mark().str("action").str("alloc").str("addr").uinteger(0xFFFFFFFFFFFFF000ull).memoize();
        const uint32_t addrSlot = w.lastMemo();
        w.str("size").integer(-5).memoize();
        const uint32_t sizeSlot = w.lastMemo();
        w.setitems();
        w.dict().mark().str("action").str("alloc").str("addr").get(addrSlot).str("size").integer(70000).put(static_cast<uint8_t>(sizeSlot));
        w.setitems();
        w.dict().mark().str("action").str("alloc").str("addr").get(addrSlot).str("size").get(sizeSlot).setitems();
        w.appends().append().setitems();
        auto snap = loadSnapshotFromMemory(w.finish(), "memo.pickle");
        const EventTable &ev = snap->traces.at(0);
        QCOMPARE(ev.count(), size_t(3));
        QCOMPARE(ev.addr[1], 0xFFFFFFFFFFFFF000ull);
        QCOMPARE(ev.addr[2], 0xFFFFFFFFFFFFF000ull);
        QCOMPARE(ev.size[1], uint64_t(70000));
        QCOMPARE(ev.size[2], uint64_t(70000));
    }

    void singleItemOpcodes()
    {
        // SETITEM / APPEND (no MARK), as CPython writes one-element containers, and the
        // DICT / LIST opcodes that build a container from marked items.
        auto unicode = [](const std::string &text) {
            std::string op = "X";
            for (int i = 0; i < 4; ++i)
                op += static_cast<char>(text.size() >> (8 * i));
            return op + text;
        };
        const std::string bytes = std::string("\x80\x02}q\x00", 5) + unicode("device_traces") + "]q\x01" + "]" + "(" +
                                  unicode("action") + unicode("alloc") + unicode("size") + "M\x10\x27" + "d" + "a" +
                                  "a" + "s" + ".";
        auto snap = loadSnapshotFromMemory(bytes, "single.pickle");
        QCOMPARE(snap->traces.at(0).count(), size_t(1));
        QCOMPARE(snap->traces.at(0).size[0], uint64_t(10000));
    }

    void multipleDevices()
    {
        SynthSnapshot s;
        s.traces = {{}, {{"alloc", 64, 10, 0, 0, -1}}, {{"alloc", 128, 20, 0, 0, -1}, {"alloc", 256, 30, 0, 0, -1}}};
        s.segments = {{2, 0x100, 0, {{512, 0, "inactive"}}}};
        auto snap = loadSnapshotFromMemory(s.pickle(), "multi.pickle");
        QCOMPARE(snap->devices(), (std::vector<int>{1, 2}));
        QCOMPARE(snap->traces.at(1).count(), size_t(1));
        QCOMPARE(snap->traces.at(2).count(), size_t(2));
        QCOMPARE(snap->traces.at(2).size[1], uint64_t(30));
        DeviceIndex index(*snap, 2);
        QCOMPARE(index.peakActiveBytes(), uint64_t(50));
        QCOMPARE(index.peakReservedBytes(), uint64_t(512));
    }

    void compression()
    {
        const std::string raw = sample().pickle();
        for (const auto &[name, bytes] : {std::pair{"zstd", zstdCompress(raw)}, std::pair{"gzip", gzipCompress(raw)}}) {
            auto snap = loadSnapshotFromMemory(bytes, "c.pickle");
            QCOMPARE(kCompressionNames.name(snap->facts.compression), std::string_view(name));
            QCOMPARE(snap->traces.at(0).count(), size_t(8));
        }
        // Two gzip members back to back read as one stream, as gzip(1) does.
        const std::string half1 = raw.substr(0, raw.size() / 2), half2 = raw.substr(raw.size() / 2);
        auto snap = loadSnapshotFromMemory(gzipCompress(half1) + gzipCompress(half2), "two.pickle");
        QCOMPARE(snap->traces.at(0).count(), size_t(8));
    }

    // The tokenizer's own thread is an optimisation only: every corpus file decodes to the
    // same snapshot, and every damaged one to the same error at the same byte, as on one thread.
    void tokenizerThreadChangesNothing()
    {
        int files = 0;
        for (const QString &path : corpusSnapshots()) {
            const std::string p = path.toStdString();
            const Decoded one = decodeWith(openByteSource(p), PickleTokenizing::OnThisThread);
            const Decoded two = decodeWith(openByteSource(p), PickleTokenizing::OnItsOwnThread);
            QVERIFY2(one.error.empty(), one.error.c_str());
            QVERIFY2(differenceOf(one, two).isEmpty(), qPrintable(path + ": " + differenceOf(one, two)));
            ++files;
        }
        QVERIFY(files >= 7);
        QFile f(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray good = f.readAll();
        QVERIFY(good.size() > 500000); // spans many token chunks
        int errors = 0;
        for (qsizetype at = 5; at < good.size(); at += good.size() / 61) {
            QByteArray cut = good.left(at), flipped = good, global = good;
            flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
            global[at] = 'c';
            for (const QByteArray &bytes : {cut, flipped, global}) {
                const std::string_view data(bytes.constData(), static_cast<size_t>(bytes.size()));
                const Decoded one = decodeWith(openMemorySource(data, "x"), PickleTokenizing::OnThisThread);
                const Decoded two = decodeWith(openMemorySource(data, "x"), PickleTokenizing::OnItsOwnThread);
                QVERIFY2(differenceOf(one, two).isEmpty(), qPrintable(QString("damage at %1: ").arg(at) + differenceOf(one, two)));
                errors += one.error.empty() ? 0 : 1;
            }
        }
        QVERIFY(errors > 61); // every cut fails, and most of the rest
    }

    // Trace entries read straight from the tokens (PickleEntryReader) against the stack machine
    // on the corpus, damaged copies of it and forms torch's pickler never writes: the same
    // snapshot to the byte, or the same error at the same byte; and read directly where the form
    // is torch's, by the machine where it is not.
    void entriesReadDirectlyAsTheMachineReadsThem()
    {
        for (const QString &path : corpusSnapshots()) {
            const std::string p = path.toStdString();
            const Decoded a = decodeWith(openByteSource(p), PickleTokenizing::OnThisThread);
            const Decoded b = decodeWith(openByteSource(p), PickleTokenizing::OnThisThread, PickleEntries::ThroughTheMachine);
            QVERIFY2(a.error.empty(), a.error.c_str());
            QVERIFY2(differenceOf(a, b).isEmpty(), qPrintable(path + ": " + differenceOf(a, b)));
            QVERIFY2(encodeSnapshot(*a.snapshot) == encodeSnapshot(*b.snapshot), qPrintable(path));
            size_t entries = 0;
            for (const EventTable &trace : a.snapshot->traces)
                entries += trace.count();
            // Only entries cut by a token chunk's end are left to the machine.
            QVERIFY2(a.direct.read * 100 >= entries * 98, qPrintable(QString("%1: %2 of %3").arg(path).arg(a.direct.read).arg(entries)));
            // Past the first entries nearly all have the keys of the one before (issue 66).
            QVERIFY2(a.direct.byShape * 100 >= entries * 70, qPrintable(QString("%1: %2 of %3 by shape").arg(path).arg(a.direct.byShape).arg(entries)));
        }
        QFile f(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray good = f.readAll();
        DirectEntries direct;
        for (qsizetype at = 7; at < good.size(); at += good.size() / 41) {
            QByteArray cut = good.left(at), flipped = good;
            flipped[at] = static_cast<char>(flipped[at] ^ 0x21);
            for (const QByteArray &bytes : {cut, flipped}) {
                const QString diff = directAgainstMachine(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), direct);
                QVERIFY2(diff.isEmpty(), qPrintable(QString("damage at %1: ").arg(at) + diff));
            }
        }

        // Whether the form is read directly; unknown for a file both ways refuse at the same byte.
        enum Direct { No, Yes, Refused };
        struct Form {
            const char *name;
            std::string bytes;
            Direct direct;
        };
        const auto alloc = [](PickleWriter &w) { entryStart(w, "alloc", 0x1000).str("frames").list().setitems(); };
        std::vector<Form> forms = {
            {"protocol 2 (BINPUT)", traceOf(2, [&](PickleWriter &w) { alloc(w); alloc(w); }), Yes},
            {"a fresh pool_id tuple on every entry", traceOf(4, [](PickleWriter &w) {
                 for (int i = 0; i < 3; ++i)
                     entryStart(w, "alloc", 0x1000 + i).str("pool_id").integer(0).integer(i).tuple2().setitems();
             }), Yes},
            {"fresh frame lists: dicts, a repeated frame, one APPEND", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("frames").list().mark();
                 const uint32_t inner = frameDict(w, "inner", 3);
                 frameDict(w, "outer", 9);
                 w.get(inner).appends().setitems();
                 entryStart(w, "free_requested", 0x1000).str("frames").list().get(inner).append().setitems();
                 entryStart(w, "alloc", 0x2000).str("frames").list();
                 frameDict(w, "solo", 1);
                 w.append().setitems();
             }), Yes},
            {"a tuple the entry made, used again in it", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("pool_id").integer(0).integer(1).tuple2();
                 w.str("pool_again").get(w.lastMemo()).setitems();
             }), Yes},
            {"a tuple made, then a form left to the machine", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("pool_id").integer(0).integer(1).tuple2();
                 w.str("not_frames").list().setitems();
             }), No},
            {"a string the entry made, used again in it", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("user_metadata").str("alloc").str("compile_context").str("N/A").setitems();
             }), Yes},
            {"\"frames\" twice, both fresh lists", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("frames").list().mark();
                 frameDict(w, "a", 1);
                 w.appends().str("frames").list().mark();
                 frameDict(w, "b", 2);
                 w.appends().setitems();
             }), No},
            {"a frame dict with \"action\"", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("frames").list().mark();
                 w.dict().mark().str("action").str("alloc").str("name").str("f").setitems().appends().setitems();
             }), No},
            {"\"action\" not first", traceOf(4, [](PickleWriter &w) {
                 w.dict().mark().str("size").integer(64).str("action").str("alloc").str("addr").integer(0x40).setitems();
             }), No},
            {"the frame list in a tuple", traceOf(4, [](PickleWriter &w) {
                 entryStart(w, "alloc", 0x1000).str("frames").list().tuple1().setitems();
             }), No},
            {"the entry refers to itself", traceOf(4, [](PickleWriter &w) {
                 w.dict();
                 const uint32_t self = w.lastMemo();
                 w.mark().str("action").str("alloc").str("me").get(self).setitems();
             }), No},
            {"an entry changed after it was made", traceOf(4, [](PickleWriter &w) {
                 w.dict();
                 const uint32_t entry = w.lastMemo();
                 w.mark().str("action").str("alloc").str("size").integer(64).setitems();
                 w.get(entry).str("size").integer(1).setitem();
             }), Refused},
        };
        for (const Form &form : forms) {
            const QString diff = directAgainstMachine(form.bytes, direct);
            QVERIFY2(diff.isEmpty(), qPrintable(QString(form.name) + ": " + diff));
            const Decoded d = decodeWith(openMemorySource(form.bytes, "x"), PickleTokenizing::OnThisThread);
            QVERIFY2(d.error.empty() == (form.direct != Refused), qPrintable(QString(form.name) + ": " + QString::fromStdString(d.error)));
            if (form.direct != Refused)
                QVERIFY2((direct.read > 0) == (form.direct == Yes), qPrintable(QString("%1: %2 read directly").arg(form.name).arg(direct.read)));
        }
    }

    // Entries read by the keys of the one before (PickleEntryShape) against the stack machine,
    // written as torch writes them (a fresh "N/A" and frame list per alloc, its frees referring
    // to the list) and with what must send the reader back to the general one.
    void entriesReadByTheShapeOfTheOneBefore()
    {
        // One entry as torch 2.11 writes it, its frames a fresh list of these frame slots or
        // (`list` ≥ 0) a reference to the list in that slot. Returns the last memo slot it wrote
        // (an alloc's: its fresh list).
        struct Torch {
            std::vector<uint32_t> frames;
            int64_t list = -1;
        };
        // An entry's keys and values up to its frames' value; the entry's memo slot.
        const auto upToFrames = [](PickleWriter &w, const std::string &action, uint64_t addr, const std::function<void()> &size) {
            w.dict();
            const uint32_t self = w.lastMemo();
            w.mark().str("action").str(action).str("addr").uinteger(addr).str("size");
            size();
            w.str("stream").integer(0).str("time_us").integer(1000 + static_cast<int64_t>(addr)).str("compile_context").freshStr("N/A");
            w.str("user_metadata").str("").str("frames");
            return self;
        };
        const auto entry = [&](PickleWriter &w, const std::string &action, uint64_t addr, const Torch &t) {
            upToFrames(w, action, addr, [&] { w.integer(512); });
            if (t.list >= 0) {
                w.get(static_cast<uint32_t>(t.list));
            } else {
                w.list();
                if (t.frames.size() == 1)
                    w.get(t.frames[0]).append();
                else if (!t.frames.empty()) {
                    w.mark();
                    for (uint32_t f : t.frames)
                        w.get(f);
                    w.appends();
                }
            }
            w.setitems();
            return w.lastMemo();
        };
        // Frame dicts made before the entries (the memo holds them as frames once converted).
        const auto run = [&](int protocol, const std::function<void(PickleWriter &, uint32_t, uint32_t)> &body) {
            PickleWriter w(protocol);
            w.dict().mark().str("segments").list().str("device_traces").list().list().mark();
            w.dict().mark().str("action").str("alloc").str("addr").uinteger(0).str("frames").list().mark();
            const uint32_t a = frameDict(w, "inner", 3), b = frameDict(w, "outer", 9);
            w.appends().setitems();
            body(w, a, b);
            w.appends().append().setitems();
            return w.finish();
        };
        const auto allocAndFrees = [&](PickleWriter &w, uint32_t a, uint32_t b, uint64_t addr) {
            const auto list = static_cast<int64_t>(entry(w, "alloc", addr, {{a, b}}));
            entry(w, "free_requested", addr, {{}, list});
            entry(w, "free_completed", addr, {{}, -1});
        };
        struct Form {
            const char *name;
            std::string bytes;
            size_t atLeast, atMost; // entries read by the shape (the first two never: their keys are new)
        };
        const auto twentyAllocs = [&](PickleWriter &w, uint32_t a, uint32_t b) {
            for (uint64_t i = 0; i < 20; ++i)
                allocAndFrees(w, a, b, 0x1000 + 0x200 * i);
        };
        const std::vector<Form> forms = {
            {"torch's entries, protocol 4", run(4, twentyAllocs), 58, 58},
            {"torch's entries, protocol 2 (BINPUT)", run(2, twentyAllocs), 58, 58},
            {"no frames (a run recorded without stacks)", run(4, [&](PickleWriter &w, uint32_t, uint32_t) {
                 for (uint64_t i = 0; i < 8; ++i) {
                     w.dict().mark().str("action").str(i % 2 ? "free_completed" : "alloc").str("addr").uinteger(0x1000 + i / 2);
                     w.str("size").integer(512).str("stream").integer(0).str("time_us").integer(static_cast<int64_t>(i)).setitems();
                 }
             }), 6, 6},
            {"one frame, none, a frame list of one", run(4, [&](PickleWriter &w, uint32_t a, uint32_t) {
                 for (uint64_t i = 0; i < 6; ++i)
                     entry(w, "alloc", 0x1000 + i, {{a}});
                 for (uint64_t i = 0; i < 6; ++i)
                     entry(w, "alloc", 0x2000 + i, {});
             }), 10, 10},
            {"a key's memo slot written again", run(4, [&](PickleWriter &w, uint32_t a, uint32_t b) {
                 for (uint64_t i = 0; i < 4; ++i)
                     allocAndFrees(w, a, b, 0x1000 + 0x200 * i);
                 // BINPUT the frame list into "size"'s slot: later entries' "size" is no key.
                 upToFrames(w, "alloc", 1, [&] { w.integer(2); });
                 w.list().get(a).append().put(static_cast<uint8_t>(w.slotOf("size"))).setitems();
                 for (uint64_t i = 0; i < 4; ++i)
                     allocAndFrees(w, a, b, 0x3000 + 0x200 * i);
             }), 10, 10},
            {"sizes read the long way (a float, beyond 64 bits, beyond 1 PiB); the entry itself", run(4, [&](PickleWriter &w, uint32_t a, uint32_t b) {
                 int64_t list = 0;
                 for (uint64_t i = 0; i < 3; ++i) {
                     list = static_cast<int64_t>(entry(w, "alloc", 0x1000 + 0x200 * i, {{a, b}}));
                     entry(w, "free_requested", 0x1000 + 0x200 * i, {{}, list});
                     entry(w, "free_completed", 0x1000 + 0x200 * i, {});
                 }
                 // Each with the keys learnt; the last one's frames are the entry itself.
                 const auto odd = [&](const std::function<void()> &size, bool itself) {
                     const uint32_t self = upToFrames(w, "alloc", 7, size);
                     w.get(itself ? self : static_cast<uint32_t>(list)).setitems();
                 };
                 odd([&] { w.real(512.5); }, false);
                 odd([&] { w.bytes().append("\x8a\x0a\x01\0\0\0\0\0\0\0\0\x01", 12); }, false);
                 odd([&] { w.integer(int64_t(1) << 51); }, false);
                 odd([&] { w.integer(64); }, true);
                 for (uint64_t i = 0; i < 3; ++i)
                     allocAndFrees(w, a, b, 0x3000 + 0x200 * i);
             }), 19, 19},
            {"a fresh frame dict in a later list", run(4, [&](PickleWriter &w, uint32_t a, uint32_t b) {
                 for (uint64_t i = 0; i < 3; ++i)
                     allocAndFrees(w, a, b, 0x1000 + 0x200 * i);
                 upToFrames(w, "alloc", 1, [&] { w.integer(2); });
                 w.list().mark().get(a);
                 frameDict(w, "new", 4);
                 w.appends().setitems();
                 for (uint64_t i = 0; i < 3; ++i)
                     allocAndFrees(w, a, b, 0x3000 + 0x200 * i);
             }), 16, 16},
        };
        for (const Form &form : forms) {
            DirectEntries direct;
            const QString diff = directAgainstMachine(form.bytes, direct);
            QVERIFY2(diff.isEmpty(), qPrintable(QString(form.name) + ": " + diff));
            const Decoded d = decodeWith(openMemorySource(form.bytes, "x"), PickleTokenizing::OnThisThread);
            QVERIFY2(d.error.empty(), qPrintable(QString(form.name) + ": " + QString::fromStdString(d.error)));
            QVERIFY2(direct.byShape >= form.atLeast && direct.byShape <= form.atMost,
                     qPrintable(QString("%1: %2 by shape").arg(form.name).arg(direct.byShape)));
        }
    }

    void progressAndCancel()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.pickle");
        SynthSnapshot s;
        for (int i = 0; i < 200000; ++i)
            s.traces.resize(1), s.traces[0].push_back({"alloc", uint64_t(i) * 512, 512, 0, 0, -1});
        const std::string bytes = s.pickle();
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        f.close();
        uint64_t last = 0, calls = 0, total = 0;
        LoadControl control;
        control.progress = [&](uint64_t done, uint64_t size) {
            QVERIFY(done >= last);
            last = done;
            total = size;
            ++calls;
        };
        auto snap = loadSnapshot(path.toStdString(), control);
        QCOMPARE(snap->traces.at(0).count(), size_t(200000));
        QVERIFY(calls >= 2);
        QCOMPARE(last, uint64_t(bytes.size()));
        QCOMPARE(total, uint64_t(bytes.size()));
        std::atomic<bool> cancel{true};
        control.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(LoadCancelled, loadSnapshot(path.toStdString(), control));
        QVERIFY_THROWS_EXCEPTION(LoadCancelled, DeviceIndex(*snap, 0, &cancel));
    }
};

QTEST_GUILESS_MAIN(TestDecoding)
#include "tst_decoding.moc"
