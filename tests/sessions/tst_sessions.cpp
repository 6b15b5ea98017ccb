// Session files: round trip (plain and zstd), unknown fields kept, atomic writes, bad input,
// and restoring a view from a session.
#include "CorpusFiles.h"
#include "IdPrinting.h"
#include "decode/input/FileChecksum.h"
#include "model/LoadError.h"
#include "report/SessionFile.h"

#include <QTemporaryDir>

using namespace memlens;

class TestSessions : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<bool>("compress");
        QTest::newRow("json") << false;
        QTest::newRow("zstd") << true;
    }

    void roundTrip()
    {
        QFETCH(bool, compress);
        QTemporaryDir dir;
        Session s;
        s.snapshotPath = (corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle").toStdString();
        s.snapshotChecksum = snapshotChecksum(s.snapshotPath);
        s.device = 0;
        s.page = "segments";
        s.visibleFirst = 10.5;
        s.visibleLast = 300;
        s.selectedEvent = EventId(218);
        s.selectedAllocation = AllocationId(7);
        s.notes = nlohmann::json::array({{{"kind", "note"}, {"text", "the peak"}, {"event", 218}}});
        s.segmentBytesPerRow = uint64_t(32) << 20;
        s.color = "category";
        s.stacks = StacksViewState{true, false, true, false, "compiled_region", true, "a.py:1:f\nb.py:2:g"};
        s.search = "cross_entropy";
        s.whatIf = "expandable_segments:True";
        s.unknown = {{"from_the_future", {{"x", 1}}}};
        const std::string path = dir.filePath("s.memlens").toStdString();
        saveSession(path, s, compress);
        const Session t = loadSession(path);
        QCOMPARE(t.snapshotPath, s.snapshotPath);
        QCOMPARE(t.snapshotChecksum, s.snapshotChecksum);
        QCOMPARE(t.page, std::string("segments"));
        QVERIFY(*t.visibleFirst == 10.5);
        QCOMPARE(*t.selectedEvent, EventId(218));
        QCOMPARE(*t.selectedAllocation, AllocationId(7));
        QVERIFY(t.notes == s.notes);
        QCOMPARE(*t.segmentBytesPerRow, uint64_t(32) << 20);
        QCOMPARE(t.color, std::string("category"));
        QVERIFY(t.stacks && *t.stacks == *s.stacks);
        QCOMPARE(t.search, s.search);
        QCOMPARE(t.whatIf, s.whatIf);
        QVERIFY(t.unknown == s.unknown); // newer fields survive
        QVERIFY(t.snapshotChecksum.rfind(std::to_string(QFileInfo(QString::fromStdString(s.snapshotPath)).size()) + "-", 0) == 0);
    }

    // A failure before the rename leaves the previous session intact, and no temporary behind.
    void atomicSave()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.memlens").toStdString();
        Session first;
        first.snapshotPath = "first.pickle";
        saveSession(path, first, false);
        Session second;
        second.snapshotPath = "second.pickle";
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 saveSession(path, second, false, [] { throw std::runtime_error("disk full"); }));
        QCOMPARE(loadSession(path).snapshotPath, std::string("first.pickle"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"s.memlens"});
    }

    void badSessions()
    {
        QTemporaryDir dir;
        auto write = [&](const QString &name, const QByteArray &bytes) {
            QFile f(dir.filePath(name));
            f.open(QIODevice::WriteOnly);
            f.write(bytes);
            return dir.filePath(name).toStdString();
        };
        for (const std::string &path : {write("a.memlens", "{}"), write("b.memlens", "not json"),
                                        write("c.memlens", "{\"memlens_session\":1,\"snapshot\":{\"path\":5}}"),
                                        // Numbers beyond their field's range (found by fuzz_session: undefined casts).
                                        write("d.memlens", "{\"memlens_session\":1,\"snapshot\":{\"path\":\"a\",\"size\":1.06667e+37}}"),
                                        write("e.memlens", "{\"memlens_session\":1,\"snapshot\":{\"path\":\"a\"},\"selected_event\":5.5e65}"),
                                        write("f.memlens", "{\"memlens_session\":1,\"snapshot\":{\"path\":\"a\"},\"device\":-1e300}"),
                                        write("g.memlens", "{\"memlens_session\":1,\"snapshot\":{\"path\":\"a\"},\"selected_allocation\":-3}"),
                                        dir.filePath("missing.memlens").toStdString()}) {
            try {
                loadSession(path);
                QFAIL("accepted a bad session");
            } catch (const LoadError &e) {
                QVERIFY2(std::string(e.what()).rfind(path + ": ", 0) == 0, e.what());
            }
        }
    }

    // `memlens render --session` restores the view; a moved snapshot gives a clear message.
    void renderFromSession()
    {
        QTemporaryDir dir;
        Session s;
        s.snapshotPath = (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
        s.page = "segments";
        s.selectedEvent = EventId(6075);
        const std::string path = dir.filePath("oom.memlens").toStdString();
        saveSession(path, s, true);
        QProcess p;
        const QString binary = QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
        p.start(binary, {"render", "--session", QString::fromStdString(path), "--footer", "--size", "1000x700", "-o", dir.filePath("v.png")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(QImage(dir.filePath("v.png")).height() > 600);
        // An annotated session rendered as SVG carries the note's text.
        s.page = "timeline";
        s.notes = nlohmann::json::array({{{"kind", "note"}, {"view", "timeline"}, {"text", "look here: the OOM"}, {"x", 6075}, {"y", 6.0e9}}});
        saveSession(path, s, false);
        p.start(binary, {"render", "--session", QString::fromStdString(path), "--footer", "-o", dir.filePath("v.svg")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        bool ok = false;
        const QString text = svgText(dir.filePath("v.svg"), &ok);
        QVERIFY(ok);
        QVERIFY2(text.contains("look here: the OOM"), qPrintable(text.right(300)));
        QVERIFY(text.contains("oom_snapshot.pickle"));
        s.snapshotPath = dir.filePath("moved.pickle").toStdString();
        saveSession(path, s, false);
        p.start(binary, {"render", "--session", QString::fromStdString(path), "-o", dir.filePath("w.png")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("the session's snapshot") && err.contains("is missing"), qPrintable(err));
        QCOMPARE(err.count('\n'), 1);
    }
};

QTEST_MAIN(TestSessions)
#include "tst_sessions.moc"
