// Malformed, truncated and hostile input: every case must end in a LoadError whose one-line
// message names the file, quickly and without a crash (this suite also runs under ASan/UBSan:
// `make sanitize`). Regression inputs found by the fuzzer live in tests/data/crashers.
#include "CorpusFiles.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "model/LoadError.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTemporaryDir>

using namespace memlens;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Loads and, if that succeeds, analyses: nothing may crash either way.
// Returns the error message, or an empty string when the input was accepted.
std::string tryLoad(const QByteArray &bytes, const std::string &name = "input.pickle")
{
    try {
        auto snapshot = loadSnapshotFromMemory(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), name);
        for (int d : snapshot->devices()) {
            DeviceIndex index(*snapshot, d);
            summarizeDevice(*snapshot, index, 5);
        }
        return {};
    } catch (const LoadError &e) {
        return e.what();
    }
}

void expectError(const QByteArray &bytes, const char *mustContain)
{
    const std::string msg = tryLoad(bytes);
    QVERIFY2(!msg.empty(), "malformed input was accepted");
    QVERIFY2(msg.rfind("input.pickle: ", 0) == 0, msg.c_str());
    QVERIFY2(msg.find('\n') == std::string::npos, msg.c_str());
    QVERIFY2(msg.find(mustContain) != std::string::npos, msg.c_str());
}

QByteArray pickleOf(const QByteArray &body)
{
    return QByteArray("\x80\x04", 2) + body;
}

QByteArray le(uint64_t v, int n)
{
    QByteArray b;
    for (int i = 0; i < n; ++i)
        b += static_cast<char>(v >> (8 * i));
    return b;
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT

private slots:
    void truncatedEverywhere()
    {
        const QByteArray good = readAll(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle");
        QVERIFY(good.size() > 10000);
        QVERIFY(tryLoad(good).empty());
        // Every 97th cut, and every cut in the first and last 300 bytes.
        for (qsizetype cut = 1; cut < good.size(); cut += (cut < 300 || cut > good.size() - 300) ? 1 : 97) {
            const std::string msg = tryLoad(good.left(cut));
            QVERIFY2(!msg.empty(), qPrintable(QString("cut at %1 was accepted").arg(cut)));
            QVERIFY2(msg.find("byte ") != std::string::npos, msg.c_str());
        }
    }

    void truncatedCompressed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("zst") << corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
        QTest::newRow("gz") << corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz";
    }
    void truncatedCompressed()
    {
        QFETCH(QString, file);
        const QByteArray good = readAll(file);
        for (qsizetype cut : {qsizetype(3), qsizetype(10), good.size() / 3, good.size() / 2, good.size() - 1}) {
            const std::string msg = tryLoad(good.left(cut));
            QVERIFY2(!msg.empty(), qPrintable(QString("cut at %1 was accepted").arg(cut)));
        }
        QByteArray corrupt = good;
        for (qsizetype i = 100; i < corrupt.size(); i += 1000)
            corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5A);
        QVERIFY(!tryLoad(corrupt).empty());
    }

    void callsCode()
    {
        // pickle.dumps(os.system-call object) as CPython writes it (protocol 2 and 4).
        expectError(QByteArray("\x80\x02" "cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.", 34),
                    "not a memory snapshot");
        expectError(pickleOf(QByteArray("\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x94\x85\x94R\x94.", 29)),
                    "STACK_GLOBAL");
        for (char op : {'R', 'b', 'i', 'o', 'P', 'Q'})
            expectError(pickleOf(QByteArray("}(") + op), "not a memory snapshot");
    }

    void garbage()
    {
        QRandomGenerator rng(42);
        for (int round = 0; round < 200; ++round) {
            QByteArray bytes(1 + rng.bounded(4096), '\0');
            for (char &c : bytes)
                c = static_cast<char>(rng.bounded(256));
            if (round % 2)
                bytes[0] = '\x80'; // make it look like a pickle, half the time
            QVERIFY(!tryLoad(bytes).empty());
        }
        expectError(QByteArray("hello world"), "neither a pickle nor JSON");
        expectError(QByteArray("{\"segments\": [", 14), "JSON");
        expectError(QByteArray("{\"segments\": 5}"), "not a list");
        expectError(QByteArray("[1, 2]"), "not a dict");
        expectError(QByteArray("\x28\xB5\x2F\xFD garbage", 12), "zstd");
        expectError(QByteArray("\x1F\x8B\x08\x00 garbage", 12), "gzip");
    }

    // Numbers no integer can hold, where integers are expected (found by fuzz_snapshot under
    // UBSan: converting them was undefined behaviour; `make sanitize` aborts on that).
    void hugeJsonNumbers()
    {
        for (const char *text : {R"({"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 1e300, "args": {"Bytes": 1e300, "Addr": -1e300}}]})",
                                 R"([[1e300, -1e300, 5.5], [[1e300, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]]])",
                                 R"([[1.5e19, 2], [1, 0, -1e19, 1e19]])"}) {
            tryLoad(QByteArray(text), "input.json");
            tryLoad(QByteArray(text), "trace.pt.trace.json");
        }
    }

    void hostileLengths()
    {
        QElapsedTimer timer;
        timer.start();
        expectError(pickleOf("\x8d" + le(1ull << 60, 8)), "string length");    // BINUNICODE8
        expectError(pickleOf("X" + le(0xFFFFFFF0u, 4)), "string length");      // BINUNICODE
        expectError(pickleOf("\x8e" + le(1ull << 60, 8) + "."), "file ends");   // BINBYTES8: skipped, not allocated
        expectError(pickleOf("\x8b" + le(1u << 31, 4)), "too large");          // LONG4
        expectError(pickleOf("r" + le(0xFFFFFFFFu, 4)), "empty stack");        // LONG_BINPUT of nothing
        expectError(pickleOf("N" + QByteArray("r") + le(0xFFFFFFF0u, 4) + "j" + le(7, 4) + "."), "memo reference 7");
        expectError(pickleOf("h\x05."), "memo reference 5");
        expectError(pickleOf(QByteArray("\x95") + le(1ull << 62, 8) + "."), "STOP with an empty stack");
        QVERIFY2(timer.elapsed() < 5000, "hostile lengths took too long");
    }

    // The machine's errors name the byte of their opcode, which a token chunk keeps as steps
    // from the token before: across chunks (ended by their count or their text), after strings
    // whose step needs more than a byte, after FRAMEs, on one thread and on two.
    void errorsNameTheirOpcodesByte()
    {
        QByteArray body;
        std::vector<qsizetype> errorsAt;
        // First steps that each fit a byte (the first chunk ends by its count, at item 8192),
        // then some that do not (chunks end by their text).
        const std::vector<int> near = {3, 250, 252, 0, 3, 0}, far = {3, 250, 252, 253, 300, 1000, 0};
        for (int item = 0; item <= 20000; ++item) {
            if (item <= 3 || (item >= 8190 && item <= 8194) || item == 15000 || item == 20000)
                errorsAt.push_back(body.size());
            if (item % 7 == 0)
                body += "\x95" + le(0, 8); // FRAME: no token
            const auto &lengths = item < 9000 ? near : far;
            const int n = lengths[static_cast<size_t>(item) % lengths.size()];
            body += n < 256 ? "\x8c" + le(static_cast<uint64_t>(n), 1) : "X" + le(static_cast<uint64_t>(n), 4);
            body += QByteArray(n, 'a') + "0"; // the string, then POP
        }
        for (const qsizetype at : errorsAt) {
            const QByteArray bytes = pickleOf(body.left(at) + "h\xc8.");
            const std::string msg = tryLoad(bytes);
            const std::string expected = "byte " + std::to_string(at + 2) + ":";
            QVERIFY2(msg.find("memo reference 200") != std::string::npos && msg.find(expected) != std::string::npos,
                     (expected + " in " + msg).c_str());
        }
    }

    // Memo slots cost what a real file's do. Python numbers its slots 0, 1, 2, …; a crafted file
    // that stores at scattered slots (LONG_BINPUT, 7 bytes an entry with NONE and POP) or memoizes
    // every byte (MEMOIZE after MEMOIZE) is refused once it holds more slots than a snapshot of its
    // size would: a scattered one per 256 bytes read, a dense one per 8 (torch writes one per
    // 30-82 bytes). Before, 1 per 2 was allowed: an 80 MB scattered file took 969 MB to refuse.
    void memoAsDenseAsRealFiles()
    {
        QByteArray scattered = pickleOf("]");
        for (uint32_t i = 0; i < 200000; ++i)
            scattered += "Nr" + le(0x10000000u + i * 7919u, 4) + "0";
        const std::string refused = tryLoad(scattered + ".");
        QVERIFY2(refused.find("memo grows faster than the file") != std::string::npos, refused.c_str());
        const size_t at = std::stoul(refused.substr(refused.find("byte ") + 5));
        QVERIFY2(at / 7 <= (at + 65536) / 256 + 2, refused.c_str()); // refused at the bound, not at 1 per 2
        QByteArray dense = pickleOf("]");
        dense += QByteArray(400000, '\x94');
        const std::string denseRefused = tryLoad(dense + ".");
        QVERIFY2(denseRefused.find("memo grows faster than the file") != std::string::npos, denseRefused.c_str());
        QVERIFY2(std::stoul(denseRefused.substr(denseRefused.find("byte ") + 5)) < 20000, denseRefused.c_str()); // 1 per 2: at 69,632
    }

    void deepNesting()
    {
        // 200k nested lists, then 200k nested dict keys: bounded stack, no recursion.
        QByteArray lists = pickleOf(QByteArray(200000, ']') + QByteArray(199999, 'a') + ".");
        QVERIFY(!tryLoad(lists).empty());
        QByteArray marks = pickleOf(QByteArray(200000, '('));
        expectError(marks, "MARKs nested deeper");
        QByteArray stack = pickleOf(QByteArray(1100000, 'N'));
        expectError(stack, "stack grows beyond");
        QByteArray json;
        for (int i = 0; i < 20000; ++i)
            json += "{\"a\":";
        json += "1" + QByteArray(20000, '}');
        expectError(json, "nested deeper");
        expectError(QByteArray(20000, '[') + QByteArray(20000, ']'), "not a memory timeline");
        // Found past the parse or at a limit, these have no one byte to name: "byte 0" misled.
        QVERIFY2(tryLoad(json).find("byte 0") == std::string::npos, tryLoad(json).c_str());
        QVERIFY2(tryLoad(QByteArray(20000, '[') + QByteArray(20000, ']')).find("byte 0") == std::string::npos, "timeline");
    }

    void selfReference()
    {
        // A list appended to itself through the memo: a cycle must not hang or crash.
        expectError(pickleOf(QByteArray("]\x94h\x00" "a.", 6)), "not a dict");
        // The root dict inserted into its own segments list: read as a segment of zeros or
        // refused, but it must come back.
        tryLoad(pickleOf(QByteArray("}\x94\x8c\x08segments\x94]\x94h\x00" "as.", 20)));
    }

    void files()
    {
        QTemporaryDir dir;
        auto message = [](const std::string &path) {
            try {
                loadSnapshot(path);
            } catch (const LoadError &e) {
                return std::string(e.what());
            }
            return std::string();
        };
        const std::string missing = dir.filePath("missing.pickle").toStdString();
        QCOMPARE(message(missing), missing + ": no such file");
        QCOMPARE(message(dir.path().toStdString()), dir.path().toStdString() + ": is a directory, not a file");
        QFile empty(dir.filePath("empty.pickle"));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        QCOMPARE(message(empty.fileName().toStdString()), empty.fileName().toStdString() + ": file is empty");
    }

    void fuzzerRegressions()
    {
        QDir dir(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/tests/data/fuzz-regressions");
        const QStringList files = dir.entryList(QDir::Files);
        QVERIFY(files.size() >= 10);
        for (const QString &name : files) {
            // Each must come back, accepted or with a one-line message naming the file.
            const std::string msg = tryLoad(readAll(dir.filePath(name)), name.toStdString());
            QVERIFY(msg.empty() || (msg.rfind(name.toStdString() + ": ", 0) == 0 && msg.find('\n') == std::string::npos));
        }
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
