// The Parquet writer's byte layouts against the format's own documents: the bit-packing example
// of Parquet's Encodings.md, Thrift's compact protocol spec (field headers, zigzag varints, lists),
// the file's framing ("PAR1", footer length); and the export's sharding. DuckDB reading whole
// files and datasets is tests/fleet/fleet_test.sh.
#include "CorpusFiles.h"
#include "export/DatasetFigures.h"
#include "export/DatasetLayout.h"
#include "parquet/PageDecoding.h"
#include "parquet/PageEncoding.h"
#include "parquet/ParquetFileReader.h"
#include "parquet/ParquetFileWriter.h"
#include "parquet/ThriftCompact.h"
#include "parquet/Utf8Text.h"
#include "questions/ExportQuestion.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sys/stat.h>
#include <iterator>

using namespace memlens;
using namespace memlens::parquet;

namespace {

QByteArray bytes(const std::string &s)
{
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

class TestParquet : public QObject {
    Q_OBJECT
private slots:
    void bitPackingIsTheSpecExample()
    {
        // Encodings.md: 0…7 with bit width 3 are 10001000 11000110 11111010 (one group of 8).
        const uint32_t values[] = {0, 1, 2, 3, 4, 5, 6, 7};
        std::string out;
        appendBitPackedRun(out, values, 8, 3);
        QCOMPARE(bytes(out), QByteArray::fromHex("0388c6fa")); // header: 1 group, bit-packed
    }

    void bitPackingPadsToWholeGroups()
    {
        const uint32_t values[] = {1, 1, 1};
        std::string out;
        appendBitPackedRun(out, values, 3, 1);
        QCOMPARE(bytes(out), QByteArray::fromHex("0307"));
    }

    void bitWidthCoversTheLargestIndex()
    {
        QCOMPARE(bitWidthFor(1), 1);
        QCOMPARE(bitWidthFor(2), 1);
        QCOMPARE(bitWidthFor(3), 2);
        QCOMPARE(bitWidthFor(256), 8);
        QCOMPARE(bitWidthFor(257), 9);
    }

    void thriftFieldHeadersAndValues()
    {
        // The compact protocol: short form (delta << 4 | type), zigzag varints, long form for a
        // delta over 15, bools in the type nibble, lists with the size in the header.
        ThriftCompactWriter w;
        w.i32(1, 1);      // 0x15 0x02
        w.i64(2, -1);     // 0x16 0x01
        w.boolean(3, true); // 0x11
        w.binary(20, "ab"); // 0x08, zigzag(20) = 0x28, length 2, "ab"
        w.beginList(21, ThriftType::I32, 3); // 0x19, 0x35
        w.listI32(0);
        w.listI32(-2);
        w.listI32(300); // zigzag 600 = 0xd8 0x04
        w.beginStruct(22); // 0x1c, then an empty struct: 0x00
        w.endStruct();
        QCOMPARE(bytes(w.finish()), QByteArray::fromHex("15021601110828026162" "1935" "0003d804" "1c00" "00"));
    }

    void fileIsFramedByMagicAndFooterLength()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.parquet").toStdString();
        ParquetOptions options;
        options.rowGroupRows = 2;
        ParquetFileWriter writer(path, {{"n", ColumnKind::Int64}, {"s", ColumnKind::String, true, true}}, options);
        for (int i = 0; i < 5; ++i)
            writer.row().integer(i).string(i % 2 ? "odd" : "even").end();
        writer.row().integer(5).null().end();
        QCOMPARE(writer.rows(), 6);
        writer.finish();
        const std::string file = readAll(path);
        QVERIFY(file.size() > 12);
        QCOMPARE(file.substr(0, 4), std::string("PAR1"));
        QCOMPARE(file.substr(file.size() - 4), std::string("PAR1"));
        const auto *tail = reinterpret_cast<const unsigned char *>(file.data() + file.size() - 8);
        const uint32_t footer = tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint32_t>(tail[3]) << 24;
        QVERIFY(footer > 0 && footer < file.size() - 12);
        QVERIFY(file.substr(file.size() - 8 - footer, footer).find("memlens") != std::string::npos); // created_by
    }

    void readerReadsWhatTheWriterWrote()
    {
        // Several row groups, nulls, dictionary and plain strings, every integer kind, a
        // non-UTF-8 string, and the columnar path beside the row path.
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.parquet").toStdString();
        ParquetOptions options;
        options.rowGroupRows = 4;
        options.metadata = {{"memlens.source", "/data/run"}};
        ParquetFileWriter writer(path,
                                 {{"n", ColumnKind::Int64}, {"s", ColumnKind::String, true, true}, {"b", ColumnKind::Boolean},
                                  {"i", ColumnKind::Int32, true}, {"t", ColumnKind::String}},
                                 options);
        std::vector<std::optional<std::string>> dictionary;
        for (int i = 0; i < 10; ++i) {
            const std::optional<std::string> s = i % 3 ? std::optional<std::string>(i % 2 ? "alloc" : "free") : std::nullopt;
            dictionary.push_back(s);
            writer.row().integer(int64_t{1} << (i * 6)).optionalString(s).boolean(i % 2).integer(i == 7 ? std::nullopt : std::optional<int64_t>(-i)).string(i == 5 ? "caf\xe9" : std::string(i, 'x')).end();
        }
        writer.finish();
        const std::string file = readAll(path);
        const ParquetFileReader reader(file);
        QCOMPARE(reader.rows(), 10);
        QCOMPARE(reader.columns().size(), size_t{5});
        QCOMPARE(reader.metadata("memlens.source"), std::optional<std::string>("/data/run"));
        const auto n = reader.integers("n");
        const auto s = reader.strings("s");
        const auto b = reader.integers("b");
        const auto i = reader.integers("i");
        const auto t = reader.strings("t");
        QCOMPARE(n.size(), size_t{10});
        for (int r = 0; r < 10; ++r) {
            QCOMPARE(n[r], std::optional<int64_t>(int64_t{1} << (r * 6)));
            QCOMPARE(s[r], dictionary[r]);
            QCOMPARE(b[r], std::optional<int64_t>(r % 2));
            QCOMPARE(i[r], r == 7 ? std::nullopt : std::optional<int64_t>(-r));
            QCOMPARE(t[r], std::optional<std::string>(r == 5 ? "caf\xef\xbf\xbd" : std::string(r, 'x')));
        }
        QVERIFY_THROWS_EXCEPTION(ParquetFormatError, reader.integers("s"));
        QVERIFY_THROWS_EXCEPTION(ParquetFormatError, reader.strings("missing"));
    }

    void readerRefusesDamage()
    {
        // Every cut and every flipped byte of a real file: an error or values, never a crash
        // (the sanitizer build and fuzz_parquet look for the rest).
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.parquet").toStdString();
        ParquetFileWriter writer(path, {{"n", ColumnKind::Int64}, {"s", ColumnKind::String, true, true}});
        for (int i = 0; i < 50; ++i)
            writer.row().integer(i).string(std::to_string(i % 7)).end();
        writer.finish();
        const std::string file = readAll(path);
        size_t refused = 0;
        for (size_t cut = 0; cut < file.size(); ++cut) {
            try {
                const ParquetFileReader reader(std::string_view(file).substr(0, cut));
                reader.integers("n");
            } catch (const ParquetFormatError &) {
                ++refused;
            }
        }
        QCOMPARE(refused, file.size()); // no prefix has both magics and a footer that fits
        for (size_t at = 0; at < file.size(); ++at) {
            std::string damaged = file;
            damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
            try {
                const ParquetFileReader reader(damaged);
                reader.integers("n");
                reader.strings("s");
            } catch (const ParquetFormatError &) {
            }
        }
    }

    void hybridDecodingReadsRunsOfBothKinds()
    {
        // An RLE run of 5 × 3 (header 5 << 1), then the spec's bit-packed 0…7.
        const std::string data = QByteArray::fromHex("0a03" "0388c6fa").toStdString();
        const std::vector<uint32_t> want{3, 3, 3, 3, 3, 0, 1, 2, 3, 4, 5, 6, 7};
        QCOMPARE(decodeHybrid(data, 3, 13, 0), want);
        QVERIFY_THROWS_EXCEPTION(ParquetFormatError, decodeHybrid(data, 3, 14, 0));
        QVERIFY_THROWS_EXCEPTION(ParquetFormatError, decodeHybrid(data, 33, 1, 0));
    }

    void rowsMustFillEveryColumn()
    {
        QTemporaryDir dir;
        ParquetFileWriter writer(dir.filePath("t.parquet").toStdString(), {{"n", ColumnKind::Int64}, {"m", ColumnKind::Int64}});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, writer.row().integer(1).end());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, writer.row().integer(1).null());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, writer.row().integer(1).integer(2).integer(3));
    }

    void unwritableFileIsOneLineNamingIt()
    {
        try {
            ParquetFileWriter writer("/nonexistent-folder/t.parquet", {{"n", ColumnKind::Int64}});
            QFAIL("no error");
        } catch (const std::runtime_error &e) {
            QVERIFY(std::string(e.what()).starts_with("/nonexistent-folder/t.parquet: cannot create"));
        }
    }

    // A memory-timeline export holds bytes per category, none of the tables' rows: it is refused
    // with one line naming it, and no part is written (it once exported six empty tables).
    void memoryTimelineIsRefused()
    {
        QTemporaryDir out;
        ExportRequest request;
        request.input = (corpusDir() + "/profiles/gpt2_bf16_adamw/memory_timeline.json.gz").toStdString();
        request.out = out.filePath("dataset").toStdString();
        const ExportAnswer answer = answerExport(request, nullptr);
        QCOMPARE(answer.failed(), size_t(1));
        QVERIFY2(answer.inputs.front().error.starts_with(request.input + ": a memory-timeline file"), answer.inputs.front().error.c_str());
        QVERIFY(!QDir(out.filePath("dataset/snapshots")).exists() || QDir(out.filePath("dataset/snapshots")).isEmpty());
    }

    void stringsBecomeValidUtf8()
    {
        // Unicode's table of well-formed sequences: overlongs, surrogates, code points beyond
        // U+10FFFF, stray continuation bytes and cut sequences are not UTF-8.
        const auto valid = [](std::string_view s) {
            std::string out;
            appendValidUtf8(out, s);
            return out;
        };
        QCOMPARE(valid("plain.py:12:f"), std::string("plain.py:12:f"));
        QCOMPARE(valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
        QCOMPARE(valid("caf\xe9.py"), std::string("caf\xef\xbf\xbd.py")); // Latin-1
        QCOMPARE(valid("\xc0\xaf"), std::string("\xef\xbf\xbd\xef\xbf\xbd"));  // overlong '/'
        QCOMPARE(valid("\xed\xa0\x80"), std::string("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd")); // a surrogate
        QCOMPARE(valid("\xf4\x90\x80\x80"), std::string("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd")); // beyond U+10FFFF
        QCOMPARE(valid("a\xe2\x82"), std::string("a\xef\xbf\xbd\xef\xbf\xbd")); // cut at the end
    }

    void sharesCoverEveryInputOnce()
    {
        for (int count = 0; count < 12; ++count) {
            std::vector<ExportInput> inputs;
            for (int i = 0; i < count; ++i)
                inputs.push_back({"f" + std::to_string(100 + i), "", i, 0});
            for (int n = 1; n <= 7; ++n) {
                std::vector<std::string> seen;
                size_t smallest = SIZE_MAX, largest = 0;
                for (int i = 1; i <= n; ++i) {
                    const auto share = shareOf(inputs, i, n);
                    smallest = std::min(smallest, share.size());
                    largest = std::max(largest, share.size());
                    for (const ExportInput &input : share)
                        seen.push_back(input.path);
                }
                QCOMPARE(seen.size(), inputs.size());
                for (size_t i = 0; i < seen.size(); ++i)
                    QCOMPARE(seen[i], inputs[i].path);
                QVERIFY(largest - smallest <= 1);
            }
        }
    }

    // What sits in a dataset's folders is untrusted: a FIFO named like a part is passed over
    // (reading it would wait forever), and a part too large to be a snapshots table is one
    // error naming it instead of a read of the whole file into memory.
    void datasetPartsAreRegularAndBounded()
    {
        QTemporaryDir dir;
        const std::string dataset = dir.filePath("dataset").toStdString();
        const ExportAnswer answer = answerExport({(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString(), dataset}, nullptr);
        QCOMPARE(answer.failed(), size_t(0));
        const QString partition = QString::fromStdString(dataset) + "/rank=0/step=0/";
        QVERIFY(QDir().mkpath(partition + "input=xwaiting") && QDir().mkpath(partition + "input=xlarge"));
        QCOMPARE(::mkfifo((partition + "input=xwaiting/snapshots.parquet").toLocal8Bit().constData(), 0600), 0);
        QVERIFY(isFleetDataset(dataset));
        QCOMPARE(readDatasetFigures(dataset).figures.size(), size_t(1));
        QFile large(partition + "input=xlarge/snapshots.parquet");
        QVERIFY(large.open(QIODevice::WriteOnly) && large.resize((qint64(1) << 30) + 1)); // sparse: nothing is written
        large.close();
        try {
            readDatasetFigures(dataset);
            QFAIL("a part over 1 GiB was read");
        } catch (const std::runtime_error &e) {
            QVERIFY2(std::string(e.what()).find("input=xlarge/snapshots.parquet: a snapshots part of 1073741825 bytes") != std::string::npos, e.what());
        }
    }

    void shardTakesIOverN()
    {
        QCOMPARE(parseShard("3/8"), std::make_pair(3, 8));
        QCOMPARE(parseShard("1/1"), std::make_pair(1, 1));
        for (const char *bad : {"0/2", "3/2", "1/0", "2", "a/b", "1/2x", "/2", "-1/2"})
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseShard(bad));
    }
};

QTEST_GUILESS_MAIN(TestParquet)
#include "tst_parquet.moc"
