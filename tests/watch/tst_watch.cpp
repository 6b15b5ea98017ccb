// `memlens watch`: dumps appear in a folder while it runs (renamed into place, written slowly in
// pieces, left half-written for a while); each is reported once, complete, with the peaks
// `summary` gives for the same file, and the growth limit ends it with exit code 3.
#include "CorpusFiles.h"

#include "watch/DumpFolderWatch.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace {

QString memlensBinary()
{
    return QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
}

// The dumps of frag_varlen_gpt2 cut every 5 steps (steps 5, 10, 15, 20, 24), by step.
QStringList cutDumps(const QString &out)
{
    const QString source = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
    QString error;
    const QByteArray lines = runPythonTool("cut_dumps.py", {source, out, "--every", "5", "--window", "6000"}, &error);
    QStringList files;
    for (const QByteArray &line : lines.split('\n')) {
        if (!line.isEmpty())
            files << QJsonDocument::fromJson(line).object()["file"].toString();
    }
    if (files.isEmpty())
        qWarning("%s", qPrintable(error));
    return files;
}

QJsonObject summaryDevice(const QString &file)
{
    QProcess p;
    p.start(memlensBinary(), {"summary", file, "--json", "--no-cache"});
    p.waitForFinished(60000);
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object()["devices"].toArray()[0].toObject();
}

QString placeOf(const QString &dump, const QString &folder)
{
    const QFileInfo info(dump);
    return folder + "/" + info.dir().dirName() + "/" + info.fileName();
}

// Written to a temporary name, then renamed into place, as the README tells jobs to.
void landAtomically(const QString &dump, const QString &folder)
{
    const QString to = placeOf(dump, folder);
    QDir().mkpath(QFileInfo(to).path());
    QFile::copy(dump, to + ".tmp");
    QFile::rename(to + ".tmp", to);
}

// Written in place, a tenth at a time with `pause` ms between pieces.
void landSlowly(const QString &dump, const QString &folder, int pause)
{
    QFile in(dump);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray bytes = in.readAll();
    const QString to = placeOf(dump, folder);
    QDir().mkpath(QFileInfo(to).path());
    QFile out(to);
    QVERIFY(out.open(QIODevice::WriteOnly));
    const qsizetype piece = bytes.size() / 10 + 1;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        out.write(bytes.mid(at, piece));
        out.flush();
        QThread::msleep(static_cast<unsigned long>(pause));
    }
}

// The next line the watcher prints, within `ms`; empty when none comes.
QByteArray nextLine(QProcess &p, int ms)
{
    QDeadlineTimer deadline(ms);
    while (!p.canReadLine() && !deadline.hasExpired())
        p.waitForReadyRead(50);
    return p.canReadLine() ? p.readLine().trimmed() : QByteArray();
}

} // namespace

class TestWatch : public QObject {
    Q_OBJECT

private slots:
    // The watch's rule with a clock of the test's own (no sleeping): a file is taken once it was
    // seen unchanged on two looks and last written `settle` ago; one that grows between looks
    // waits; one rewritten after it was taken is taken again once it settles.
    void settleRuleOnATestClock()
    {
        QTemporaryDir watched;
        const QStringList dumps = cutDumps(watched.path() + "/src");
        QVERIFY(!dumps.isEmpty());
        std::filesystem::file_time_type clock = std::filesystem::file_time_type::clock::now();
        memlens::DumpFolderWatch watch(watched.path().toStdString() + "/run", std::chrono::seconds(30), [&clock] { return clock; });
        QDir().mkpath(watched.path() + "/run/iteration_2");
        const std::string file = (watched.path() + "/run/iteration_2/rank0_memory_snapshot.pickle").toStdString();
        QVERIFY(QFile::copy(dumps[0], QString::fromStdString(file)));
        const auto written = std::filesystem::last_write_time(file);
        // A whole pickle (PROTO first, STOP last) that has rested 200 ms is taken at first sight,
        // not 30 s later; it was taken 2-3 s after landing with the window's 1 s polls.
        clock = written + std::chrono::milliseconds(100);
        QVERIFY(watch.poll().empty()); // still being written, for all the watch knows
        clock = written + std::chrono::seconds(1);
        QCOMPARE(watch.poll().size(), size_t(1));
        QVERIFY(watch.poll().empty()); // once
        // A pickle cut short (its writer mid-way) waits for the settle rule.
        const std::string half = (watched.path() + "/run/iteration_2/rank1_memory_snapshot.pickle").toStdString();
        {
            QFile whole(dumps[0]);
            QVERIFY(whole.open(QIODevice::ReadOnly));
            std::ofstream out(half, std::ios::binary);
            const QByteArray bytes = whole.readAll();
            out.write(bytes.constData(), bytes.size() / 2);
        }
        std::filesystem::last_write_time(half, written);
        QVERIFY(watch.poll().empty()); // seen once
        QVERIFY(watch.poll().empty()); // unchanged, but written 1 s ago of the 30 it must rest
        clock = written + std::chrono::seconds(31);
        QCOMPARE(watch.poll().size(), size_t(1)); // settled: taken once
        QVERIFY(watch.poll().empty());
        // Grows (written in place, no longer ending with STOP): not again until it rests, then once more.
        {
            std::ofstream more(file, std::ios::app | std::ios::binary);
            more << "x";
        }
        std::filesystem::last_write_time(file, written + std::chrono::seconds(40));
        clock = written + std::chrono::seconds(41);
        QVERIFY(watch.poll().empty());
        QVERIFY(watch.poll().empty());
        clock = written + std::chrono::seconds(71);
        QCOMPARE(watch.poll().size(), size_t(1));
    }

    void dumpsReportedAsTheyLand()
    {
        QTemporaryDir source, watched;
        const QStringList dumps = cutDumps(source.path());
        QCOMPARE(dumps.size(), 5);
        QProcess watch;
        watch.start(memlensBinary(), {"watch", watched.path(), "--json-lines", "--interval", "0.1", "--no-cache"});
        QVERIFY(watch.waitForStarted());

        landAtomically(dumps[0], watched.path());
        const QJsonObject first = QJsonDocument::fromJson(nextLine(watch, 20000)).object();
        QCOMPARE(first["step"].toInt(), 5);
        QCOMPARE(first["rank"].toInt(), 0);
        QVERIFY(first["change_percent"].isNull());
        const QJsonObject own = summaryDevice(dumps[0]);
        QCOMPARE(first["peak_active_bytes"].toInteger(), own["peak_active_bytes"].toInteger());
        QCOMPARE(first["peak_reserved_bytes"].toInteger(), own["peak_reserved_bytes"].toInteger());

        // Pieces 300 ms apart: each pause is shorter than the time a dump must rest, so the
        // watcher never reads it half-written.
        landSlowly(dumps[1], watched.path(), 300);
        const QJsonObject second = QJsonDocument::fromJson(nextLine(watch, 20000)).object();
        QCOMPARE(second["step"].toInt(), 10);
        QCOMPARE(second["previous_step"].toInt(), 5);
        const double peakA = first["peak_active_bytes"].toDouble(), peakB = summaryDevice(dumps[1])["peak_active_bytes"].toDouble();
        QCOMPARE(second["peak_active_bytes"].toDouble(), peakB);
        QVERIFY(std::abs(second["change_percent"].toDouble() - (peakB - peakA) * 100 / peakA) < 1e-6);
        QCOMPARE(watch.readAllStandardError(), QByteArray()); // not a try at a partial file

        // Half a file left alone for longer than that: it may be tried, but it is no error and
        // it is reported once complete.
        QFile in(dumps[2]);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        const QString to = placeOf(dumps[2], watched.path());
        QDir().mkpath(QFileInfo(to).path());
        {
            QFile out(to);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes.left(bytes.size() / 2));
        }
        QCOMPARE(nextLine(watch, 2500), QByteArray());
        {
            QFile out(to);
            QVERIFY(out.open(QIODevice::Append));
            out.write(bytes.mid(bytes.size() / 2));
        }
        const QJsonObject third = QJsonDocument::fromJson(nextLine(watch, 20000)).object();
        QCOMPARE(third["step"].toInt(), 15);
        QCOMPARE(third["peak_active_bytes"].toInteger(), summaryDevice(dumps[2])["peak_active_bytes"].toInteger());
        QCOMPARE(watch.state(), QProcess::Running); // still following the folder
        watch.kill();
        watch.waitForFinished();
    }

    // The frag_varlen dump at step 10 peaks 239 % above the one at step 5.
    void growthLimitExitsThree()
    {
        QTemporaryDir source, watched;
        const QStringList dumps = cutDumps(source.path());
        QCOMPARE(dumps.size(), 5);
        landAtomically(dumps[0], watched.path());
        landAtomically(dumps[1], watched.path());
        QProcess watch;
        watch.start(memlensBinary(), {"watch", watched.path(), "--interval", "0.1", "--fail-if-peak-grows", "50", "--no-cache"});
        QVERIFY(watch.waitForFinished(30000));
        QCOMPARE(watch.exitCode(), 3);
        const QList<QByteArray> lines = watch.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith("rank 0 step 5: peak"));
        QVERIFY(lines[1].startsWith("rank 0 step 10: peak"));
        QVERIFY(watch.readAllStandardError().contains("past 50 %"));

        // Under the limit it goes on watching.
        QProcess calm;
        calm.start(memlensBinary(), {"watch", watched.path(), "--interval", "0.1", "--fail-if-peak-grows", "500", "--no-cache"});
        QVERIFY(!calm.waitForFinished(3000));
        calm.kill();
        calm.waitForFinished();
    }
};

QTEST_GUILESS_MAIN(TestWatch)
#include "tst_watch.moc"
