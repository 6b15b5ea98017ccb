// The headless command line as users and scripts call it: `memlens summary` output, its
// stable JSON keys, and one-line errors with a non-zero exit for bad input.
#include "CorpusFiles.h"
#include "cache/StoredAnswers.h"

#include <QImage>
#include <QThread>
#include <QDirIterator>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include <signal.h>
#include <sys/stat.h>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run runMemlens(const QStringList &args, const QString &cacheHome = {})
{
    QProcess p;
    if (!cacheHome.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CACHE_HOME", cacheHome);
        p.setProcessEnvironment(env);
    }
    p.start(QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens", args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

const QStringList kDeviceKeys = {
    "device", "entries", "actions", "initial_bytes", "initial_blocks", "peak_active_bytes", "peak_index",
    "peak_time_us", "live_blocks_at_peak", "top_live_at_peak", "peak_reserved_bytes", "start_reserved_bytes",
    "segments", "reserved_bytes", "allocated_bytes", "requested_bytes", "inactive_bytes",
    "largest_inactive_block", "external_fragmentation", "blocks", "oom_entries", "phases", "name",
    "category_bytes_at_peak", "steps", "steps_from", "leak_suspects"};

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    // The text says what people read: "optimizer state", not the JSON key; one rank is "1 rank".
    void textSaysWhatPeopleRead()
    {
        const Run one = runMemlens({"summary", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--no-cache"});
        QCOMPARE(one.exitCode, 0);
        QVERIFY2(one.out.contains("optimizer state 949 MiB") && !one.out.contains("optimizer_state"), one.out.constData());
        QTemporaryDir dir;
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", dir.filePath("rank0.pickle")));
        const Run folder = runMemlens({"summary", dir.path(), "--no-cache"});
        QCOMPARE(folder.exitCode, 0);
        QVERIFY2(folder.out.startsWith((dir.path() + ": 1 rank\n").toUtf8()), folder.out.constData());
    }

    // Options of one group in the table exclude each other, and the one reader says so for
    // every group: summary's output forms, diff's, advise's capacity (exit 2, one line naming
    // both in the table's order); `summary --json --folded` printed folded stacks, exit 0.
    void exclusiveGroupsAreRefused()
    {
        const QString file = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QList<QPair<QStringList, QString>> cases = {
            {{"summary", file, "--folded", "--json"}, "give --json or --folded, not both"},
            {{"diff", file, file, "--markdown", "--json"}, "give --json or --markdown, not both"},
            {{"advise", file, "--capacity", "100", "--gpu", "h100-80"}, "give --gpu or --capacity, not both"}};
        for (const auto &[args, says] : cases) {
            const Run r = runMemlens(args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.out.isEmpty() && r.err.trimmed().endsWith(says.toUtf8()) && r.err.count('\n') == 1, r.err.constData());
        }
    }

    // A rank whose dumps carry no times cannot be stitched: the files' fault, not the usage's
    // (exit 1 with the file named, where it exited 2 as for a wrong option).
    void stitchingTimelessDumpsIsAFileProblem()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY(QDir(dir.path()).mkpath("iteration_1"));
        const QString dump = dir.filePath("iteration_1/rank0_memory_snapshot.pickle");
        runPythonTool("make_user_variants.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", dump, "--marks", "torch", "--no-times"}, &error);
        QVERIFY2(QFile::exists(dump), qPrintable(error));
        const Run r = runMemlens({"summary", dir.path(), "--rank", "0", "--stitch", "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("no times") && r.err.contains("rank0_memory_snapshot.pickle"), r.err.constData());
    }

    // A FIFO and a link to nothing named like dumps in a folder: export leaves them out and says
    // so, as `summary DIR` does (it said nothing: "Exported 1 of 1 files").
    void exportSaysWhatItLeftOut()
    {
        QTemporaryDir dir, out;
        QVERIFY(QDir(dir.path()).mkpath("in"));
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", dir.filePath("in/rank0.pickle")));
        QVERIFY(::mkfifo(dir.filePath("in/rank1.pickle").toLocal8Bit().constData(), 0600) == 0);
        QVERIFY(QFile::link(dir.filePath("nowhere.pickle"), dir.filePath("in/rank2.pickle")));
        const Run text = runMemlens({"export", dir.filePath("in"), "--parquet", out.filePath("ds")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("note: " + dir.filePath("in/rank1.pickle").toUtf8() + ": not a regular file"), text.out.constData());
        QVERIFY2(text.out.contains("note: " + dir.filePath("in/rank2.pickle").toUtf8() + ": a link to nothing"), text.out.constData());
        const Run json = runMemlens({"export", dir.filePath("in"), "--parquet", out.filePath("ds"), "--json"});
        QCOMPARE(QJsonDocument::fromJson(json.out).object()["notes"].toArray().size(), 2);
    }

    // An input is its dump, however it was named: exported as FILE and inside DIR it is one
    // input (it was two rows in DuckDB). --prune drops the inputs of dumps DIR no longer has (one
    // deleted, one rewritten so it cannot be read: their old tables stayed, "Exported 2 of 3"
    // over a dataset of 4), and the text says what OUT holds, counted here from its folders.
    void exportInputsAreTheirDumps()
    {
        QTemporaryDir dir, out;
        const QString ds = out.filePath("ds");
        QStringList dumps;
        for (int step : {1, 2, 3}) {
            QVERIFY(QDir(dir.path()).mkpath(QString("iteration_%1").arg(step)));
            dumps << dir.filePath(QString("iteration_%1/rank0_memory_snapshot.pickle").arg(step));
            QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", dumps.back()));
        }
        auto held = [&] {
            int n = 0;
            for (QDirIterator it(ds, {"input=*"}, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories); it.hasNext(); it.next())
                ++n;
            return n;
        };
        QCOMPARE(runMemlens({"export", dumps[0], "--parquet", ds, "--no-cache"}).exitCode, 0);
        const Run all = runMemlens({"export", dir.path(), "--parquet", ds, "--no-cache"});
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(held(), 3);
        QVERIFY2(all.out.contains(ds.toUtf8() + " holds 3 inputs now."), all.out.constData());
        QCOMPARE(runMemlens({"export", dumps[0], "--parquet", ds, "--prune"}).exitCode, 2); // a file has nothing to prune
        QVERIFY(QFile::remove(dumps[1]));
        QFile broken(dumps[2]);
        QVERIFY(broken.open(QIODevice::ReadWrite) && broken.resize(100));
        broken.close();
        const Run kept = runMemlens({"export", dir.path(), "--parquet", ds, "--no-cache"});
        QCOMPARE(kept.exitCode, 1); // iteration_3's dump cannot be read
        QCOMPARE(held(), 3);         // without --prune the old tables stay, and the text says so
        QVERIFY2(kept.out.contains(" holds 3 inputs now."), kept.out.constData());
        const Run pruned = runMemlens({"export", dir.path(), "--parquet", ds, "--no-cache", "--prune", "--json"});
        QCOMPARE(pruned.exitCode, 1);
        const QJsonObject answer = QJsonDocument::fromJson(pruned.out).object();
        QCOMPARE(answer["pruned"].toArray().size(), 2);
        QCOMPARE(answer["held"].toInt(), 1);
        QCOMPARE(held(), 1);
    }

    // A staging folder is swept only when its owner is known dead: of this boot and PID
    // namespace and gone, or untouched for a day. An export in another PID namespace (another
    // container or host on a shared file system) always looked dead to kill(pid, 0) and lost
    // its input mid-write; its folder is now kept. The foreign namespace is a real one from
    // unshare where it runs (its PID 1, alive there), else a made-up inode, said so.
    void exportSweepsOnlyWhatIsKnownDead()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", dir.filePath("rank0.pickle")));
        const QString step = dir.filePath("ds/rank=0/step=0");
        QVERIFY(QDir().mkpath(step));
        QFile bootFile("/proc/sys/kernel/random/boot_id");
        QVERIFY(bootFile.open(QIODevice::ReadOnly));
        const QString boot = QString::fromLatin1(bootFile.readAll()).trimmed().remove('-');
        struct stat st {};
        QVERIFY(::stat("/proc/self/ns/pid", &st) == 0);
        const QString ours = QString::number(st.st_ino);
        QProcess other;
        other.start("unshare", {"--fork", "--pid", "--mount-proc", "stat", "-L", "-c", "%i", "/proc/self/ns/pid"});
        QString foreign = other.waitForFinished(10000) && other.exitCode() == 0 ? QString::fromLatin1(other.readAllStandardOutput()).trimmed() : QString();
        if (foreign.isEmpty() || foreign == ours) {
            qInfo("unshare gave no PID namespace of its own here: a made-up namespace inode stands in");
            foreign = QString::number(st.st_ino + 1);
        }
        const QString dead = QString::number(4194303); // above pid_max's default: no process has it
        const QMap<QString, bool> swept{{QString(".input=x1.%1_%2_%3.tmp").arg(boot, ours, dead), true},
                                        {QString(".input=x2.%1_%2_1.tmp").arg(boot, foreign), false},
                                        {QString(".input=x3.%1_%2_%3.tmp").arg(boot, foreign, dead), false},
                                        {QString(".input=x4.ffff_%1_%2.tmp").arg(ours, dead), false},
                                        {QString(".input=x5.ffff_%1_%2.tmp").arg(ours, dead), true}};
        for (auto it = swept.begin(); it != swept.end(); ++it)
            QVERIFY(QDir(step).mkdir(it.key()));
        // Another host's folder untouched for two days is left over; one written now is not.
        const QString old = step + "/" + QString(".input=x5.ffff_%1_%2.tmp").arg(ours, dead);
        QVERIFY(QProcess::execute("touch", {"-d", "2 days ago", old}) == 0);
        const Run r = runMemlens({"export", dir.filePath("rank0.pickle"), "--parquet", dir.filePath("ds"), "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        for (auto it = swept.begin(); it != swept.end(); ++it)
            QVERIFY2(QDir(step).exists(it.key()) != it.value(), qPrintable(it.key() + (it.value() ? " was kept" : " was swept")));
    }

    // An answer that did not reach standard output whole is a failure: to /dev/full (a full
    // disk) and with stdout closed, every answering command exits 1 with one line on stderr
    // (exit 0 over a cut JSON before); the same commands to /dev/null exit 0.
    void writeErrorsOnStandardOutputFail()
    {
        const QString file = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString binary = QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
        const QList<QStringList> commands = {{"summary", file, "--json"}, {"summary", file}, {"advise", file, "--json"},
                                             {"replay", file, "--json"},  {"summary", file, "--folded"}, {"help", "--markdown"}};
        for (const QStringList &command : commands) {
            for (const char *redirect : {"> /dev/full", ">&-", "> /dev/null"}) {
                QProcess p;
                p.start("/bin/sh", QStringList{"-c", QString("\"$0\" \"$@\" %1").arg(redirect), binary} + command);
                QVERIFY(p.waitForFinished(120000));
                const QByteArray err = p.readAllStandardError();
                const QString what = command.join(' ') + " " + redirect + ": " + QString::fromUtf8(err);
                if (QByteArray(redirect) == "> /dev/null") {
                    QVERIFY2(p.exitCode() == 0 && err.isEmpty(), qPrintable(what));
                    continue;
                }
                QVERIFY2(p.exitCode() == 1, qPrintable(what));
                QVERIFY2(err.count('\n') == 1 && err.startsWith("memlens: cannot write the answer"), qPrintable(what));
            }
        }
    }

    // An image to a full disk: one line of memlens' own, naming the file and the lack of space
    // (libpng printed "libpng error: Write Error" first, then "cannot write: Unknown error").
    // A 64 KiB tmpfs stands for the full disk where mounting one is allowed (root, not in a
    // container that forbids it); skipped with a line where not.
    void imageToAFullDiskSaysOneLine()
    {
        QTemporaryDir mountPoint;
        QProcess mount;
        mount.start("mount", {"-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint.path()});
        if (!mount.waitForFinished(10000) || mount.exitCode() != 0)
            QSKIP("cannot mount a small tmpfs here (not root, or a container forbids it)");
        const QString out = mountPoint.filePath("timeline.png");
        const Run r = runMemlens({"render", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--view", "timeline", "-o", out, "--no-cache"});
        QProcess::execute("umount", {mountPoint.path()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.count('\n') == 1 && r.err.startsWith("memlens render: " + out.toUtf8() + ": cannot write: no space left"), r.err.constData());
    }

    // A page the file does not have is refused in one line, no image written: the window hides
    // its tab, and render drew an empty chart under its message (By unit on a run without units).
    void renderRefusesAPageTheFileHasNot()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("modules.png");
        const Run r = runMemlens({"render", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--view", "modules", "-o", out, "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("no modules page for this file"), r.err.constData());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(runMemlens({"render", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--view", "layers", "-o", dir.filePath("layers.png"), "--no-cache"}).exitCode, 0);
    }

    // A folder of ranks draws the window's rank overview, and with --view modules its units side
    // by side (it said "is a directory"); a folder without units has no modules page, and a page
    // of one rank needs --rank.
    void renderAFolderOfRanks()
    {
        QTemporaryDir dir;
        QString error;
        runPythonTool("make_fsdp2_run.py", {"--layers", "4", "--ranks", dir.filePath("job"), dir.filePath("one.pickle")}, &error);
        QVERIFY2(QFileInfo::exists(dir.filePath("job/iteration_1/rank0_memory_snapshot.pickle")), qPrintable(error));
        for (const QStringList &view : {QStringList{}, QStringList{"--view", "modules"}}) {
            const QString out = dir.filePath(view.isEmpty() ? "overview.png" : "modules.png");
            const Run r = runMemlens(QStringList{"render", dir.filePath("job"), "-o", out, "--size", "900x500", "--no-cache"} + view);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(QImage(out).size(), QSize(900, 500));
        }
        QTemporaryDir plain;
        for (int rank = 0; rank < 2; ++rank)
            QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", plain.filePath(QString("rank%1_memory_snapshot.pickle").arg(rank))));
        Run r = runMemlens({"render", plain.path(), "--view", "modules", "-o", plain.filePath("m.png"), "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("no modules page for this folder"), r.err.constData());
        QVERIFY(!QFile::exists(plain.filePath("m.png")));
        r = runMemlens({"render", plain.path(), "--view", "stacks", "-o", plain.filePath("s.png"), "--no-cache"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--rank R"), r.err.constData());
    }

    // A FIFO is refused at once (it blocked forever); the end of a file without trace entries is
    // its final segments (it was exit 2, while --at peak worked); --folded prints one device's
    // stacks (it printed every device's one after another, with no marker).
    void carelessUsage()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("live.pickle");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        const Run blocked = runMemlens({"summary", fifo, "--no-cache"});
        QCOMPARE(blocked.exitCode, 1);
        QVERIFY2(blocked.err.contains("not a regular file") && blocked.err.count('\n') == 1, blocked.err.constData());

        const QString bare = dir.filePath("legacy_segments.pickle"); // a bare list of segments: no trace
        QString error;
        runPythonTool("rewrite_snapshot.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", dir.path()}, &error);
        QVERIFY2(QFile::exists(bare), qPrintable(error));
        const Run end = runMemlens({"summary", bare, "--at", "end", "--json", "--no-cache"});
        QVERIFY2(end.exitCode == 0, end.err.constData());
        const QJsonObject device = QJsonDocument::fromJson(end.out).object()["devices"].toArray()[0].toObject();
        QCOMPARE(device["at"].toObject()["reserved_bytes"].toInteger(), device["reserved_bytes"].toInteger());
        QVERIFY(device["at"].toObject()["index"].isNull());
        // Said as what it is, not "At event start".
        const Run endText = runMemlens({"summary", bare, "--at", "end", "--no-cache"});
        QVERIFY2(endText.out.contains("At the final state (the file has no trace entries)") && !endText.out.contains("At event start"), endText.out.constData());

        const QString pools = dir.filePath("two.pickle");
        runPythonTool("make_private_pools.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", pools, "--second-device"}, &error);
        QVERIFY2(QFile::exists(pools), qPrintable(error));
        const Run all = runMemlens({"summary", pools, "--folded", "--no-cache"});
        const Run first = runMemlens({"summary", pools, "--folded", "--device", "0", "--no-cache"});
        const Run second = runMemlens({"summary", pools, "--folded", "--device", "1", "--no-cache"});
        QVERIFY(all.exitCode == 0 && !all.out.isEmpty());
        QCOMPARE(all.out, first.out);
        QVERIFY(first.out != second.out);
    }

    // Names that are not UTF-8 (a Latin-1 file name, one corrupt byte in a frame's name) are
    // written as U+FFFD in every JSON output; they aborted the process before (type_error.316).
    void jsonOutputsSurviveBytesThatAreNotUtf8()
    {
        QTemporaryDir dir;
        QFile source(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle");
        QVERIFY(source.open(QIODevice::ReadOnly));
        QByteArray bytes = source.readAll();
        const qsizetype at = bytes.indexOf("lm_steps");
        QVERIFY(at > 0);
        bytes[at] = char(0xe9); // inside a frame's name, still a valid pickle
        QFile corrupt(dir.filePath("frame.pickle"));
        QVERIFY(corrupt.open(QIODevice::WriteOnly) && corrupt.write(bytes) == bytes.size());
        corrupt.close();
        const QString binary = QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
        for (const QString command : {"summary", "advise", "replay"}) {
            for (const QString &name : {QString("frame.pickle"), QString("$(printf 'caf\\351.pickle')")}) {
                QProcess p;
                p.setWorkingDirectory(dir.path());
                p.start("/bin/sh", {"-c", QString("cp frame.pickle \"$(printf 'caf\\351.pickle')\" && \"%1\" %2 \"%3\" --json --no-cache").arg(binary, command, name)});
                QVERIFY(p.waitForFinished(120000));
                QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAllStandardError().constData());
                const QByteArray out = p.readAllStandardOutput();
                QJsonParseError error;
                QJsonDocument::fromJson(out, &error);
                QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(command + ": " + error.errorString()));
                if (command == "summary" || name != "frame.pickle") // advise and replay name no frames
                    QVERIFY2(out.contains("\xef\xbf\xbd"), qPrintable(command + " " + name)); // U+FFFD where the byte was
            }
        }
        QProcess::execute("/bin/sh", {"-c", QString("rm -f \"%1\"/caf*.pickle").arg(dir.path())}); // Qt cannot name it to remove it
    }

    // `summary FILE` asked again prints the answer kept beside the cache entry: byte for byte
    // the cold answer, under the path as this asker spells it, for each form and request. Kept
    // answers are what is printed (a forged one shows), but only for the same file: a touched
    // file, or a damaged answers file, is answered cold.
    void summaryAskedAgainIsTheKeptAnswer()
    {
        QTemporaryDir cacheHome, work;
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString copy = work.filePath("run.pickle");
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", copy));
        const QString trace = corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz";
        const QList<QStringList> requests = {{}, {"--json"}, {"--at", "oom", "--top", "3"}, {"--device", "0", "--json", "--gpu", "h100-80"}};
        for (const QString &file : {oom, copy, trace}) {
            for (const QStringList &request : requests) {
                if (file != oom && request.contains("oom"))
                    continue;
                const Run cold = runMemlens(QStringList{"summary", file, "--no-cache"} + request);
                QCOMPARE(cold.exitCode, 0);
                for (int ask = 0; ask < 2; ++ask) {
                    const Run again = runMemlens(QStringList{"summary", file} + request, cacheHome.path());
                    QCOMPARE(again.exitCode, 0);
                    QCOMPARE(again.out, cold.out);
                }
            }
        }
        const auto key = memlens::SnapshotCache::keyOf(copy.toStdString());
        const memlens::SnapshotCache cache(cacheHome.path().toStdString() + "/memlens");
        const std::string answersFile = cache.entryPath(*key) + ".answers";
        QVERIFY(std::filesystem::exists(answersFile));
        const QString relative = QDir(QDir::currentPath()).relativeFilePath(copy);
        const Run cold = runMemlens({"summary", relative, "--no-cache"});
        QCOMPARE(runMemlens({"summary", relative}, cacheHome.path()).out, cold.out);
        // A forged answer under this binary's name is printed: the kept answer is what is read.
        const std::string binary = std::string(MEMLENS_BINARY_DIR) + "/bin/memlens";
        const std::string forged = ": forged\n";
        const std::string question = "summary text device=all top=10 at=none gpu=none";
        {
            std::ofstream out(answersFile, std::ios::binary | std::ios::trunc);
            out << memlens::makeAnswersFile(*key, memlens::executableIdentity(binary), {{question, forged}});
        }
        QCOMPARE(runMemlens({"summary", copy}, cacheHome.path()).out, QByteArray((copy.toStdString() + forged).c_str()));
        std::filesystem::resize_file(answersFile, std::filesystem::file_size(answersFile) - 1);
        QCOMPARE(runMemlens({"summary", copy}, cacheHome.path()).out, runMemlens({"summary", copy, "--no-cache"}).out);
        {
            std::ofstream out(answersFile, std::ios::binary | std::ios::trunc);
            out << memlens::makeAnswersFile(*key, memlens::executableIdentity(binary), {{question, forged}});
        }
        QVERIFY(QProcess::execute("touch", {"-d", "2020-01-01", copy}) == 0);
        QCOMPARE(runMemlens({"summary", copy}, cacheHome.path()).out, runMemlens({"summary", copy, "--no-cache"}).out);
    }

    // The CI gate: exit 3 when B's peak grows by more than PCT over A's, 0 otherwise; 1 for an
    // unreadable file, 2 for wrong usage. --markdown prints tables for a pull-request comment.
    void diffGate()
    {
        const QString small = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle"; // peak 5.87 GiB
        const QString large = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";          // peak 8.07 GiB
        QCOMPARE(runMemlens({"diff", small, large, "--fail-if-peak-grows", "5"}).exitCode, 3);
        QCOMPARE(runMemlens({"diff", small, large, "--fail-if-peak-grows", "40"}).exitCode, 0); // +37.4 %
        QCOMPARE(runMemlens({"diff", large, small, "--fail-if-peak-grows", "0"}).exitCode, 0);
        QCOMPARE(runMemlens({"diff", large, large, "--fail-if-peak-grows", "0", "--fail-if-reserved-grows", "0"}).exitCode, 0);
        const Run reserved = runMemlens({"diff", small, large, "--fail-if-reserved-grows", "10"});
        QCOMPARE(reserved.exitCode, 3);
        QVERIFY(reserved.err.contains("peak reserved grew"));
        QCOMPARE(runMemlens({"diff", small, "/nonexistent.pickle", "--fail-if-peak-grows", "5"}).exitCode, 1);
        QCOMPARE(runMemlens({"diff", small, large, "--fail-if-peak-grows", "ten"}).exitCode, 2);
        QCOMPARE(runMemlens({"diff", small, large, "--fail-if-peak-grows", "5", "--no-cache"}).exitCode, 3); // like every command
        const Run md = runMemlens({"diff", small, large, "--markdown", "--top", "3"});
        QCOMPARE(md.exitCode, 0);
        const QString text = QString::fromUtf8(md.out);
        QVERIFY(text.contains("| Peak active | 5.87 GiB | 8.07 GiB |"));
        QVERIFY(text.contains("|---|---:|---:|---:|"));
        QVERIFY(text.contains("| activation |"));
        QCOMPARE(text.count("| `"), 3); // the top three call sites
        const QJsonObject j = QJsonDocument::fromJson(runMemlens({"diff", small, large, "--json"}).out).object();
        const QJsonObject ownA = QJsonDocument::fromJson(runMemlens({"summary", small, "--json"}).out).object()["devices"].toArray()[0].toObject();
        const QJsonObject ownB = QJsonDocument::fromJson(runMemlens({"summary", large, "--json"}).out).object()["devices"].toArray()[0].toObject();
        QCOMPARE(j["peak_active_a"].toDouble(), ownA["peak_active_bytes"].toDouble());
        QCOMPARE(j["peak_reserved_b"].toDouble(), ownB["peak_reserved_bytes"].toDouble());
        QCOMPARE(j["category_bytes_at_peak"].toObject()["activation"].toObject()["b"].toDouble(),
                 ownB["category_bytes_at_peak"].toObject()["activation"].toDouble());
    }

    // `render A --compare B`: an image of exactly the size asked for; a bad --align is a usage error.
    void renderComparison()
    {
        QTemporaryDir dir;
        const QString a = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString b = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
        const QString out = dir.filePath("cmp.png");
        const Run r = runMemlens({"render", a, "--compare", b, "--align", "time", "--size", "900x500", "-o", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QImage(out).size(), QSize(900, 500));
        QCOMPARE(runMemlens({"render", a, "--compare", b, "--align", "sideways", "-o", out}).exitCode, 2);
        QCOMPARE(runMemlens({"render", a, "--compare", dir.filePath("missing.pickle"), "-o", out}).exitCode, 1);
    }

    // `advise`: the OOM's inferred setup and fixes as the README lists them; the capacity
    // options; `render --view estimator --fix` with one of those fixes, and with none of them.
    // `replay`: the issue's JSON keys; the recorded OOM reproduced under the file's own setting;
    // bad settings and files that cannot be replayed are one-line errors.
    void replayCommand()
    {
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        Run r = runMemlens({"replay", oom, "--json", "--no-cache"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonObject j = QJsonDocument::fromJson(r.out).object();
        for (const QString key : {"device", "alloc_conf", "recorded", "predicted"})
            QVERIFY2(j.contains(key), qPrintable(key));
        for (const QString key : {"peak_reserved_bytes", "segment_allocs"})
            QVERIFY2(j["recorded"].toObject().contains(key), qPrintable(key));
        const QJsonObject predicted = j["predicted"].toObject();
        for (const QString key : {"peak_reserved_bytes", "peak_index", "segment_allocs", "oom_at", "reserved_at_end_bytes"})
            QVERIFY2(predicted.contains(key), qPrintable(key));
        QCOMPARE(predicted["oom_at"].toInteger(), j["recorded"].toObject()["oom_at"].toInteger());
        QCOMPARE(j["alloc_conf"].toString(), QString());
        r = runMemlens({"replay", oom, "--json", "--alloc-conf", "expandable_segments:True"});
        j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["alloc_conf"].toString(), QString("expandable_segments:True"));
        QVERIFY(j["predicted"].toObject().contains("oom_at"));
        const Run bad = runMemlens({"replay", oom, "--alloc-conf", "max_split_size_mb:huge"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("max_split_size_mb") && bad.err.count('\n') == 1, bad.err.constData());
        // The run's 6 GiB cap as per_process_memory_fraction of an H100 (--gpu): the recorded OOM.
        const QString fraction = QString::number(double(6ull << 30) / 85017493504.0, 'g', 17);
        r = runMemlens({"replay", oom, "--json", "--alloc-conf", "per_process_memory_fraction:" + fraction, "--gpu", "h100-80"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["predicted"].toObject()["oom_at"].toInteger(), j["recorded"].toObject()["oom_at"].toInteger());
        QVERIFY(j["capacity_how"].toString().startsWith("per_process_memory_fraction"));
        const Run noTotal = runMemlens({"replay", oom, "--alloc-conf", "per_process_memory_fraction:0.5"});
        QCOMPARE(noTotal.exitCode, 2);
        QVERIFY2(noTotal.err.contains("--gpu") && noTotal.err.count('\n') == 1, noTotal.err.constData());
        // PYTORCH_ALLOC_CONF's other keys of today are accepted.
        QCOMPARE(runMemlens({"replay", oom, "--alloc-conf", "max_non_split_rounding_mb:512,throw_on_cudamalloc_oom:True"}).exitCode, 0);
        // render draws the same replay on the timeline or the Segments page.
        QTemporaryDir dir;
        const QString png = dir.filePath("whatif.png");
        const Run drawn = runMemlens({"render", oom, "--view", "timeline", "--what-if", "expandable_segments:True", "--size", "900x600", "-o", png});
        QVERIFY2(drawn.exitCode == 0, drawn.err.constData());
        QCOMPARE(QImage(png).size(), QSize(900, 600));
        QCOMPARE(runMemlens({"render", oom, "--view", "stacks", "--what-if", "expandable_segments:True", "-o", png}).exitCode, 2);
        QCOMPARE(runMemlens({"render", oom, "--view", "segments", "--what-if", "expandable_segments:maybe", "-o", png}).exitCode, 2);
        const Run trace = runMemlens({"replay", corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz"});
        QCOMPARE(trace.exitCode, 1);
        QCOMPARE(trace.err.count('\n'), 1);
    }

    void adviseCommand()
    {
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        Run r = runMemlens({"advise", oom, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["at"].toString(), QString("oom"));
        for (const QString key : {"event", "peak_bytes", "reserved_bytes", "category_bytes", "logits_bytes", "attention_score_bytes",
                                   "capacity_bytes", "capacity_how", "inferred", "fixes"})
            QVERIFY2(j.contains(key), qPrintable(key));
        QCOMPARE(j["inferred"].toObject()["preset"].toObject()["value"].toString(), QString("gpt2-medium"));
        const QJsonArray fixes = j["fixes"].toArray();
        QVERIFY(!fixes.isEmpty());
        for (const QString key : {"technique", "effort", "saves_bytes", "peak_after_bytes", "fits", "why", "affects"})
            QVERIFY2(fixes.first().toObject().contains(key), qPrintable(key));
        // A given capacity replaces the OOM entry's: 80 GB, less what the OOM shows outside the
        // allocator (the device's total less the free and reserved bytes the file records), fits
        // everything - except that a sharding fix is never marked as fitting while the GPU count
        // is a guess.
        r = runMemlens({"advise", oom, "--json", "--gpu", "h100-80"});
        j = QJsonDocument::fromJson(r.out).object();
        const QJsonObject oomEntry =
            QJsonDocument::fromJson(runMemlens({"summary", oom, "--json", "--gpu", "h100-80"}).out).object()["devices"].toArray()[0].toObject()["oom_entries"].toArray()[0].toObject();
        QCOMPARE(oomEntry["outside_allocator_bytes"].toInteger(),
                 qint64(85'017'493'504) - oomEntry["device_free"].toInteger() - oomEntry["reserved_bytes"].toInteger());
        QCOMPARE(j["outside_allocator_bytes"].toInteger(), oomEntry["outside_allocator_bytes"].toInteger());
        QCOMPARE(j["capacity_bytes"].toInteger(), qint64(85'017'493'504) - j["outside_allocator_bytes"].toInteger());
        int sharding = 0;
        for (const QJsonValue &f : j["fixes"].toArray()) {
            const bool shards = f.toObject()["technique"].toString().endsWith(" GPUs");
            sharding += shards;
            QVERIFY(shards ? f.toObject()["fits"].isNull() : f.toObject()["fits"].toBool());
        }
        QVERIFY(sharding > 0);
        // With --gpus the count is the user's, and the sharding fixes say whether they fit.
        r = runMemlens({"advise", oom, "--json", "--gpu", "h100-80", "--gpus", "4"});
        for (const QJsonValue &f : QJsonDocument::fromJson(r.out).object()["fixes"].toArray()) {
            QVERIFY(f.toObject()["fits"].toBool());
            if (f.toObject()["technique"].toString().endsWith(" GPUs"))
                QVERIFY(f.toObject()["technique"].toString().endsWith(" over 4 GPUs"));
        }
        // --sort saves: by bytes saved alone, as before efforts ranked them; anything else is wrong usage.
        r = runMemlens({"advise", oom, "--json", "--sort", "saves"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray bySaves = QJsonDocument::fromJson(r.out).object()["fixes"].toArray();
        QVERIFY(bySaves.size() >= 2);
        for (qsizetype i = 1; i < bySaves.size(); ++i)
            QVERIFY(bySaves[i - 1].toObject()["saves_bytes"].toInteger() >= bySaves[i].toObject()["saves_bytes"].toInteger());
        QCOMPARE(runMemlens({"advise", oom, "--sort", "cheapest"}).exitCode, 2);
        // --at end names the last entry, as summary reports it.
        r = runMemlens({"summary", oom, "--json", "--at", "end"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject atEnd = QJsonDocument::fromJson(r.out).object()["devices"].toArray()[0].toObject();
        QCOMPARE(atEnd["at"].toObject()["index"].toInteger(), atEnd["entries"].toInteger() - 1);
        QCOMPARE(runMemlens({"advise", oom, "--gpu", "h100-80", "--capacity", "1000"}).exitCode, 2);
        QCOMPARE(runMemlens({"advise", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--at", "oom"}).exitCode, 2);
        // Valid files with nothing to act on: an answer and exit 0, not "wrong usage".
        QTemporaryDir dir;
        const QString empty = dir.filePath("empty.json");
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"segments": [], "device_traces": []})");
        f.close();
        for (const QString &file : {empty, corpusDir() + "/profiles/gpt2_bf16_adamw/memory_timeline.json.gz"}) {
            const Run nothing = runMemlens({"advise", file, "--json"});
            QCOMPARE(nothing.exitCode, 0);
            QVERIFY2(QJsonDocument::fromJson(nothing.out).object().contains("nothing_to_advise"), nothing.out.constData());
        }
        const QString out = dir.filePath("fix.png");
        r = runMemlens({"render", oom, "--view", "estimator", "--fix", fixes.first().toObject()["technique"].toString(), "--size", "900x600", "-o", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QImage(out).size(), QSize(900, 600));
        QCOMPARE(runMemlens({"render", oom, "--view", "estimator", "--fix", "no-such-fix", "-o", out}).exitCode, 2);
        // --lora-dropout keeps a mask per adapted input: more activations than without.
        const QStringList lora{"estimate", "--json", "--model", "tinyllama-1.1b", "--precision", "bf16", "--lora-r", "16"};
        const qint64 without = QJsonDocument::fromJson(runMemlens(lora).out).object()["activations_bytes"].toInteger();
        const qint64 with = QJsonDocument::fromJson(runMemlens(lora + QStringList{"--lora-dropout", "0.1"}).out).object()["activations_bytes"].toInteger();
        QVERIFY(with > without);
        QCOMPARE(runMemlens(lora + QStringList{"--lora-dropout", "1.5"}).exitCode, 2);
        // --lora-targets q-v: PEFT's default for Llama, as its print_trainable_parameters counts it
        // (Llama-3-8B, r 16: 6,815,744); an unknown set is a usage error.
        const QStringList qv{"estimate", "--json", "--model", "llama-3-8b", "--precision", "bf16", "--lora-r", "16", "--lora-targets", "q-v"};
        QCOMPARE(QJsonDocument::fromJson(runMemlens(qv).out).object()["trainable_params"].toInteger(), qint64(6'815'744));
        QCOMPARE(runMemlens({"estimate", "--model", "llama-3-8b", "--lora-r", "16", "--lora-targets", "q-k"}).exitCode, 2);
        // --stack-by orders segment-timeline's bands; on another view it is a usage error.
        const QString order = dir.filePath("order.png");
        r = runMemlens({"render", oom, "--view", "segment-timeline", "--stack-by", "allocation", "--size", "900x600", "-o", order});
        QVERIFY2(r.exitCode == 0 && QImage(order).size() == QSize(900, 600), r.err.constData());
        QCOMPARE(runMemlens({"render", oom, "--view", "timeline", "--stack-by", "allocation", "-o", order}).exitCode, 2);
    }

    // `summary DIR --json`: ranks sorted by rank with their own figures, the imbalance.
    void summaryOfFolder()
    {
        QTemporaryDir dir;
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        QVERIFY(QFile::link(oom, dir.filePath("oom_rank-1_gpt.pickle")));
        QVERIFY(QFile::link(gpt2, dir.filePath("oom_rank-0_gpt.pickle")));
        const Run r = runMemlens({"summary", dir.path(), "--json", "--threads", "2"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        const QJsonArray ranks = j["ranks"].toArray();
        QCOMPARE(ranks.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const QJsonObject own = QJsonDocument::fromJson(runMemlens({"summary", i ? oom : gpt2, "--json"}).out).object();
            const QJsonObject device = own["devices"].toArray()[0].toObject();
            QCOMPARE(ranks[i].toObject()["rank"].toInt(), i);
            QCOMPARE(ranks[i].toObject()["peak_active_bytes"].toDouble(), device["peak_active_bytes"].toDouble());
            QCOMPARE(ranks[i].toObject()["category_bytes_at_peak"].toObject(), device["category_bytes_at_peak"].toObject());
        }
        QCOMPARE(ranks[1].toObject()["oom_entries"].toInt(), 1);
        QVERIFY(ranks[1].toObject()["step"].isNull());
        const double a = ranks[0].toObject()["peak_active_bytes"].toDouble(), b = ranks[1].toObject()["peak_active_bytes"].toDouble();
        QCOMPARE(j["imbalance"].toDouble(), std::max(a, b) / ((a + b) / 2));
        QCOMPARE(runMemlens({"summary", dir.filePath("empty-missing")}).exitCode, 1);
    }

    // --version needs no display (it ran with none here: the GUI is never started) and names
    // the project's version, the Qt it runs on and the cache format.
    void version()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        p.setProcessEnvironment(env);
        for (const char *flag : {"--version", "-V"}) {
            p.start(QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens", {flag});
            QVERIFY(p.waitForFinished(30000));
            QCOMPARE(p.exitCode(), 0);
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(QRegularExpression("^memlens \\d+\\.\\d+\\.\\d+\n").match(out).hasMatch(),
                     qPrintable(out));
            QVERIFY2(out.contains(QString("Qt ") + qVersion()), qPrintable(out));
            QVERIFY2(QRegularExpression("zstd \\d+\\.\\d+\\.\\d+, snapshot cache format \\d+\n").match(out).hasMatch(), qPrintable(out));
        }
    }

    // `memlens --help` names every subcommand, option and view docs/commands.md documents.
    void helpListsWhatTheCommandsPageDocuments()
    {
        QFile commands(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/docs/commands.md");
        QVERIFY(commands.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(commands.readAll());
        QStringList documented;
        static const QRegularExpression headings("^## `memlens (\\w+)([^`]*)`", QRegularExpression::MultilineOption);
        static const QRegularExpression option("--[a-z][a-z0-9-]*");
        for (auto h = headings.globalMatch(text); h.hasNext();) {
            const auto m = h.next();
            documented << m.captured(1);
            for (auto o = option.globalMatch(m.captured(2)); o.hasNext();)
                documented << o.next().captured(0);
        }
        for (const char *view : {"timeline", "segments", "stacks", "flamegraph", "live", "summary", "categories", "estimator"})
            documented << view;
        QVERIFY(documented.size() > 30);
        const Run r = runMemlens({"--help"});
        QCOMPARE(r.exitCode, 0);
        const QString help = QString::fromUtf8(r.out);
        for (const QString &word : documented)
            QVERIFY2(help.contains(word), qPrintable(word + " is in docs/commands.md but not in --help"));
    }

    // docs/json.md names every key the commands print with --json, on the files that make the
    // most keys appear: an OOM with a capacity, a stepped run at its end, a profiler trace, an
    // FSDP run, a folder of ranks, a stitched rank, an export, a diff, a replay and an estimate.
    void jsonKeysAreDocumented()
    {
        QFile page(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/docs/json.md");
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QByteArray documented = page.readAll();
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString steps = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        QTemporaryDir ranks;
        for (int step : {10, 20}) {
            QVERIFY(QDir(ranks.path()).mkpath(QString("iteration_%1").arg(step)));
            for (int rank : {0, 1})
                QVERIFY(QFile::link(rank ? oom : gpt2, ranks.filePath(QString("iteration_%1/rank%2_memory_snapshot.pickle").arg(step).arg(rank))));
        }
        const QString fsdp = ranks.filePath("fsdp.pickle");
        QString error;
        runPythonTool("make_fsdp2_run.py", {fsdp, "--layers", "4"}, &error);
        QVERIFY2(QFile::exists(fsdp), qPrintable(error));
        const QList<QStringList> commands = {
            {"summary", fsdp, "--json", "--at", "end"},
            {"advise", fsdp, "--gpu", "a100-40", "--json"},
            {"summary", oom, "--json", "--gpu", "h100-80", "--at", "oom"},
            {"summary", steps, "--json", "--at", "end"},
            {"summary", corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz", "--json"},
            {"summary", ranks.path(), "--json"},
            {"summary", ranks.path(), "--rank", "0", "--stitch", "--json"},
            {"export", ranks.filePath("iteration_10"), "--parquet", ranks.filePath("ds"), "--json"},
            {"diff", oom, gpt2, "--json"},
            {"advise", oom, "--gpu", "h100-80", "--json"},
            {"advise", steps, "--json"},
            {"replay", oom, "--alloc-conf", "expandable_segments:True", "--json"},
            {"estimate", "--model", "gpt2-small", "--gpu", "h100-80", "--fit", "batch", "--json"}};
        QSet<QString> keys;
        const std::function<void(const QJsonValue &)> collect = [&](const QJsonValue &v) {
            if (v.isObject()) {
                const QJsonObject object = v.toObject();
                for (auto it = object.begin(); it != object.end(); ++it) {
                    keys.insert(it.key());
                    collect(it.value());
                }
            } else if (v.isArray())
                for (const QJsonValue &item : v.toArray())
                    collect(item);
        };
        for (const QStringList &args : commands) {
            const Run r = runMemlens(args.first() == "estimate" ? args : args + QStringList{"--no-cache"});
            QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err));
            QJsonParseError error;
            const QJsonDocument j = QJsonDocument::fromJson(r.out, &error);
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(args.join(' ')));
            collect(j.isObject() ? QJsonValue(j.object()) : QJsonValue(j.array()));
        }
        QVERIFY(keys.size() > 150);
        QStringList missing;
        for (const QString &key : keys) {
            const bool named = documented.contains(("`" + key + "`").toUtf8()) || documented.contains(("`" + key + "[]`").toUtf8())
                || documented.contains(("\"" + key + "\"").toUtf8());
            if (!named)
                missing << key;
        }
        missing.sort();
        QVERIFY2(missing.isEmpty(), qPrintable("not in docs/json.md: " + missing.join(", ")));
    }

    // An export killed at any moment leaves no input half visible: each input's seven tables (export/FleetTables) appear
    // together (one folder, one rename), whatever was being written; a re-run sweeps the dead
    // runs' staging folders and completes the dataset. A dump rewritten in place replaces its
    // tables on re-export (it kept the old part beside the new: two snapshots rows, two peaks).
    // An OUT that cannot be written is one line before any input is decoded.
    void exportKilledAnywhereIsWholeOrAbsent()
    {
        QTemporaryDir dir;
        const QString fleet = dir.filePath("fleet"), out = dir.filePath("ds");
        for (int step = 1; step <= 4; ++step) {
            QVERIFY(QDir().mkpath(fleet + QString("/iteration_%1").arg(step)));
            for (int rank = 0; rank < 3; ++rank)
                QVERIFY(QFile::copy(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle",
                                    fleet + QString("/iteration_%1/rank%2_memory_snapshot.pickle").arg(step).arg(rank)));
        }
        auto inputFolders = [&](bool hidden) {
            QStringList found;
            QDirIterator it(out, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (QFileInfo(path).fileName().startsWith(hidden ? ".input=" : "input="))
                    found << path;
            }
            return found;
        };
        int killedMidway = 0;
        for (int delayMs = 40; delayMs <= 640; delayMs += 40) {
            QProcess p;
            p.start(QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens", {"export", fleet, "--parquet", out, "--no-cache"});
            QVERIFY(p.waitForStarted());
            QThread::msleep(static_cast<unsigned long>(delayMs));
            killedMidway += p.state() == QProcess::Running;
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            p.waitForFinished();
            for (const QString &folder : inputFolders(false)) {
                const QStringList tables = QDir(folder).entryList({"*.parquet"}, QDir::Files);
                QVERIFY2(tables.size() == 7, qPrintable(folder + QString(" holds %1 tables after a kill at %2 ms").arg(tables.size()).arg(delayMs)));
            }
        }
        QVERIFY2(killedMidway >= 3, "no kill landed while the export ran");
        const Run whole = runMemlens({"export", fleet, "--parquet", out, "--no-cache"});
        QCOMPARE(whole.exitCode, 0);
        QCOMPARE(inputFolders(false).size(), 12);
        QVERIFY2(inputFolders(true).isEmpty(), qPrintable(inputFolders(true).join(", ")));

        // Rewritten in place: the same input, the other run's figures, still one folder.
        const QString rewritten = fleet + "/iteration_4/rank2_memory_snapshot.pickle";
        QVERIFY(QFile::remove(rewritten));
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle", rewritten));
        QCOMPARE(runMemlens({"export", fleet, "--parquet", out, "--no-cache"}).exitCode, 0);
        QCOMPARE(inputFolders(false).size(), 12);

        QFile blocker(dir.filePath("not-a-folder"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const Run refused = runMemlens({"export", fleet, "--parquet", dir.filePath("not-a-folder/ds"), "--no-cache"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.count('\n') == 1 && refused.err.contains("not-a-folder/ds: cannot write there"), refused.err.constData());
        QVERIFY2(refused.out.isEmpty(), refused.out.constData()); // nothing was decoded and reported first
    }

    // Like git's and cargo's: `memlens COMMAND --help` and `memlens help COMMAND` print that
    // command's forms and every option of the table, exit 0 (summary --help answered "unknown
    // option --help"; `memlens help` opened a window on a file called "help"); `memlens help` is
    // the overview; a misspelt option is answered with the nearest one.
    void helpLikeGits()
    {
        for (const QString name : {"summary", "diff", "advise", "replay", "render", "export", "watch", "estimate"}) {
            const Run asked = runMemlens({name, "--help"}), viaHelp = runMemlens({"help", name}), shortly = runMemlens({name, "FILE", "-h"});
            QVERIFY2(asked.exitCode == 0 && asked.err.isEmpty(), qPrintable(name + ": " + asked.err));
            QCOMPARE(viaHelp.out, asked.out);
            QCOMPARE(shortly.out, asked.out);
            QVERIFY2(asked.out.startsWith("usage: memlens " + name.toUtf8() + " "), asked.out.left(80).constData());
            // Every option the table gives the command (what completion lists).
            const QList<QByteArray> options = runMemlens({"--list", "options", name}).out.split('\n');
            QVERIFY(options.size() > 2);
            for (const QByteArray &option : options)
                QVERIFY2(asked.out.contains(option.trimmed()), qPrintable(name + " --help lacks " + option));
        }
        QCOMPARE(runMemlens({"mcp", "--help"}).exitCode, 0);
        QVERIFY(runMemlens({"mcp", "--help"}).out.contains("--root DIR"));
        const Run overview = runMemlens({"help"});
        QCOMPARE(overview.exitCode, 0);
        QCOMPARE(overview.out, runMemlens({"--help"}).out);
        const Run unknown = runMemlens({"help", "sumary"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("'sumary' is not a memlens command") && unknown.err.count('\n') == 1, unknown.err.constData());
        const QString file = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const Run typo = runMemlens({"summary", file, "--tpo", "5"});
        QCOMPARE(typo.exitCode, 2);
        QVERIFY2(typo.err.contains("unknown option --tpo; did you mean --top?"), typo.err.constData());
    }

    // Without a login session XDG_RUNTIME_DIR is unset and Qt warned about it on stderr, so a
    // refusal of `memlens render` was two lines (issue 56, item 15).
    void renderRefusalIsOneLineWithoutASession()
    {
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("XDG_RUNTIME_DIR");
        p.setProcessEnvironment(env);
        p.start(QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens",
                {"render", dir.filePath("missing.pickle"), "--view", "timeline", "-o", dir.filePath("x.png")});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(err.count('\n') == 1 && err.contains("missing.pickle"), err.constData());
    }

    // render -o to a name that is not UTF-8 writes that name byte for byte (it wrote one with
    // U+FFFD in it and exited 0), and a render that fails leaves no file behind (issue 56, item 13).
    void renderNamesItsImageByteForByte()
    {
        QTemporaryDir dir;
        const std::string latin1 = dir.path().toStdString() + "/caf\xe9.png";
        // QProcess spells arguments in UTF-8: the raw bytes go through the shell.
        const std::string command = "'" + std::string(MEMLENS_BINARY_DIR) + "/bin/memlens' render '" + corpusDir().toStdString() +
                                    "/snapshots/gpt2_fp32_adamw/snapshot.pickle' --view timeline --no-cache -o '" + latin1 + "'";
        QCOMPARE(std::system(command.c_str()), 0);
        std::vector<std::string> names;
        for (const auto &entry : std::filesystem::directory_iterator(dir.path().toStdString()))
            names.push_back(entry.path().filename().string());
        QCOMPARE(names, std::vector<std::string>{"caf\xe9.png"});
        const std::string failing = "'" + std::string(MEMLENS_BINARY_DIR) + "/bin/memlens' render '" + dir.path().toStdString() +
                                    "/missing.pickle' -o '" + dir.path().toStdString() + "/gr\xfc\xdf.png' 2>/dev/null";
        QVERIFY(std::system(failing.c_str()) != 0);
        names.clear();
        for (const auto &entry : std::filesystem::directory_iterator(dir.path().toStdString()))
            names.push_back(entry.path().filename().string());
        QCOMPARE(names, std::vector<std::string>{"caf\xe9.png"});
    }

    // docs/cli.md is what the option table makes (memlens help --markdown): a flag added to the
    // table and not to the reference fails here.
    void referenceIsTheTable()
    {
        QFile reference(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/docs/cli.md");
        QVERIFY(reference.open(QIODevice::ReadOnly));
        const Run made = runMemlens({"help", "--markdown"});
        QCOMPARE(made.exitCode, 0);
        QVERIFY2(made.out == reference.readAll(), "docs/cli.md differs from `memlens help --markdown`: regenerate it");
        for (const QByteArray flag : {"--fail-if-peak-grows", "--alloc-conf", "--parquet", "--interval", "--lora-r"})
            QVERIFY2(made.out.contains(flag), flag.constData());
    }

    // The option table bounds whole numbers and choices once (questions/OptionValues): the
    // command line refuses --top 0 and 500, a negative device and a choice it does not list, as
    // MCP does (tst_mcp::tableBoundsArguments); --top 0 printed an empty list before.
    void tableBoundsOptions()
    {
        const QString file = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QList<std::pair<QStringList, QByteArray>> refused = {
            {{"summary", file, "--top", "0"}, "--top takes a whole number from 1 to 100, not '0'"},
            {{"summary", file, "--top", "500"}, "--top takes a whole number from 1 to 100, not '500'"},
            {{"summary", file, "--device", "-1"}, "--device takes a whole number ≥ 0, not '-1'"},
            {{"advise", file, "--sort", "size"}, "--sort takes effort or saves, not 'size'"},
            {{"advise", file, "--gpus", "0"}, "--gpus takes a whole number from 1 to 1048576, not '0'"},
        };
        for (const auto &[args, words] : refused) {
            const Run r = runMemlens(args.first() == "estimate" ? args : args + QStringList{"--no-cache"});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(words) && r.err.count('\n') == 1, r.err.constData());
        }
        QCOMPARE(runMemlens({"summary", file, "--top", "100", "--no-cache"}).exitCode, 0);
        QCOMPARE(runMemlens({"advise", file, "--sort", "saves", "--no-cache"}).exitCode, 0);
    }

    void summaryJson_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : corpusSnapshots())
            QTest::newRow(qPrintable(QDir(corpusDir()).relativeFilePath(f))) << f;
    }

    void summaryJson()
    {
        QFETCH(QString, file);
        const Run r = runMemlens({"summary", file, "--json", "--top", "3"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject root = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(root["file"].toString(), file);
        QCOMPARE(root["format"].toString(), QString("pickle"));
        QCOMPARE(root["compression"].toString(), file.endsWith(".zst") ? "zstd" : file.endsWith(".gz") ? "gzip" : "none");
        const QJsonArray devices = root["devices"].toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject d = devices[0].toObject();
        for (const QString &key : kDeviceKeys)
            QVERIFY2(d.contains(key), qPrintable(key));
        const QJsonObject truth = readJsonObject(QFileInfo(file).dir().filePath("truth.json"));
        QCOMPARE(d["peak_reserved_bytes"].toInteger(), truth["peak_reserved"].toInteger());
        const QJsonArray top = d["top_live_at_peak"].toArray();
        QCOMPARE(top.size(), 3);
        for (int i = 1; i < top.size(); ++i)
            QVERIFY(top[i - 1].toObject()["size"].toInteger() >= top[i].toObject()["size"].toInteger());
        for (const QString key : {"addr", "size", "stream", "alloc_index", "category", "frames"})
            QVERIFY2(top[0].toObject().contains(key), qPrintable(key));
        // Actions add up to the entries.
        qint64 sum = 0;
        const QJsonObject actions = d["actions"].toObject();
        for (auto it = actions.begin(); it != actions.end(); ++it)
            sum += it.value().toInteger();
        QCOMPARE(sum, d["entries"].toInteger());
    }

    void summaryAtOom()
    {
        const QString file = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const Run r = runMemlens({"summary", file, "--json", "--at", "oom"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject d = QJsonDocument::fromJson(r.out).object()["devices"].toArray()[0].toObject();
        const QJsonArray ooms = d["oom_entries"].toArray();
        QCOMPARE(ooms.size(), 1);
        QCOMPARE(d["at"].toObject()["index"].toInteger(), ooms[0].toObject()["index"].toInteger());
        QCOMPARE(ooms[0].toObject()["size"].toInteger(), qint64(12582912));
        QCOMPARE(ooms[0].toObject()["verdict"].toString(), QString("fragmentation"));
        QVERIFY(ooms[0].toObject()["reserved_free_bytes"].toInteger() > 100ll << 20);
        QVERIFY(ooms[0].toObject()["largest_free_block"].toInteger() < 12582912);
        // Nothing is freed between the peak and the OOM in this file, so the OOM point holds the peak.
        QCOMPARE(d["at"].toObject()["active_bytes"].toInteger(), d["peak_active_bytes"].toInteger());
    }

    void summaryText()
    {
        const Run r = runMemlens({"summary", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Peak active"));
        QVERIFY(r.out.contains("Peak reserved  8.73 GiB (9,378,463,744 B)"));
    }

    void render_data()
    {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("theme");
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("timeline light") << "timeline" << "light" << QStringList{};
        QTest::newRow("timeline dark at oom") << "timeline" << "dark" << QStringList{"--at", "oom"};
        QTest::newRow("timeline range") << "timeline" << "light" << QStringList{"--range", "5000:6000", "--at", "peak"};
        QTest::newRow("timeline by category") << "timeline" << "light" << QStringList{"--color", "category"};
        QTest::newRow("timeline search") << "timeline" << "dark" << QStringList{"--search", "cross_entropy"};
        QTest::newRow("summary") << "summary" << "light" << QStringList{};
    }

    void render()
    {
        QFETCH(QString, view);
        QFETCH(QString, theme);
        QFETCH(QStringList, extra);
        QTemporaryDir dir;
        const QString file = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString png = dir.filePath("view.png"), svg = dir.filePath("view.svg");
        Run r = runMemlens(QStringList{"render", file, "--view", view, "--theme", theme, "--size", "1000x700", "-o", png} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QImage image(png);
        QCOMPARE(image.size(), QSize(1000, 700));
        // Not a blank picture: many distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
        r = runMemlens(QStringList{"render", file, "--view", view, "--size", "1000x700", "-o", svg} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        bool ok = false;
        int texts = 0;
        const QString allText = svgText(svg, &ok, &texts);
        QVERIFY2(ok, "the SVG is not well-formed XML");
        QVERIFY(texts > 5);
        QVERIFY2(allText.contains("5.87 GiB"), qPrintable(allText.left(300)));
    }

    void renderFooter()
    {
        QTemporaryDir dir;
        const QString file = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const Run r = runMemlens({"render", file, "--view", "timeline", "--at", "oom", "--size", "1000x700", "--footer", "-o", dir.filePath("f.png")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The page (without the device row and tabs) plus the 22-pixel footer.
        const QImage image(dir.filePath("f.png"));
        QVERIFY(image.width() < 1000 && image.width() > 900);
        QVERIFY(image.height() > 500);
    }

    void renderErrors()
    {
        const QString file = corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle";
        QTemporaryDir dir;
        Run r = runMemlens({"render", file, "--view", "pie", "-o", dir.filePath("x.png")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("not available"));
        r = runMemlens({"render", file, "-o", dir.filePath("x.bmp")});
        QCOMPARE(r.exitCode, 2);
        r = runMemlens({"render", file, "--size", "10x10", "-o", dir.filePath("x.png")});
        QCOMPARE(r.exitCode, 2);
        r = runMemlens({"render", dir.filePath("missing.pickle"), "-o", dir.filePath("x.png")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("no such file"));
        QVERIFY(!QFile::exists(dir.filePath("x.png")));
    }

    void diff()
    {
        const QString a = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString b = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/after_oom_snapshot.pickle";
        Run r = runMemlens({"diff", a, a, "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["differing_sites"].toInteger(), 0);
        QCOMPARE(j["change"].toInteger(), 0);
        r = runMemlens({"diff", a, b, "--at", "oom", "--json"});
        QCOMPARE(r.exitCode, 0);
        j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["total_a"].toInteger(), j["total_b"].toInteger()); // the same moment, dumped twice
        r = runMemlens({"diff", a});
        QCOMPARE(r.exitCode, 2);
    }

    void profilerJson()
    {
        const QString dir = corpusDir() + "/profiles/gpt2_bf16_adamw";
        Run r = runMemlens({"summary", dir + "/trace.pt.trace.json.gz", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["format"].toString(), QString("chrome-trace"));
        QVERIFY(j["unavailable"].toArray().contains(QJsonValue("segments")));
        const QJsonObject cuda = j["devices"].toArray()[0].toObject();
        QCOMPARE(cuda["name"].toString(), QString("cuda:0"));
        for (const QString key : {"trace_peak_total_allocated", "trace_peak_total_allocated_index", "trace_final_total_allocated",
                                  "trace_final_total_reserved"})
            QVERIFY2(cuda.contains(key), qPrintable(key));
        QCOMPARE(j["devices"].toArray()[1].toObject()["name"].toString(), QString("cpu"));
        r = runMemlens({"summary", dir + "/memory_timeline.json.gz", "--json"});
        QCOMPARE(r.exitCode, 0);
        j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["format"].toString(), QString("memory-timeline"));
        for (const QString key : {"points", "peak_total_bytes", "peak_time_us", "at_peak", "final"})
            QVERIFY2(j["categories"].toObject().contains(key), qPrintable(key));
        QVERIFY(j["categories"].toObject()["at_peak"].toObject().contains("optimizer_state"));
    }

    void folded()
    {
        const Run r = runMemlens({"summary", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--folded"});
        QCOMPARE(r.exitCode, 0);
        qint64 total = 0;
        for (const QByteArray &line : r.out.split('\n')) {
            if (line.isEmpty())
                continue;
            QVERIFY(line.contains(';') || line.startsWith("(no stack"));
            total += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
        }
        const Run s = runMemlens({"summary", corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", "--json"});
        QCOMPARE(total, QJsonDocument::fromJson(s.out).object()["devices"].toArray()[0].toObject()["peak_active_bytes"].toInteger());
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTemporaryDir dir;
        dir.setAutoRemove(false);
        auto write = [&](const QString &name, const QByteArray &bytes) {
            QFile f(dir.filePath(name));
            f.open(QIODevice::WriteOnly);
            f.write(bytes);
            return f.fileName();
        };
        const QString evil = write("evil.pickle", QByteArray("\x80\x02" "cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.", 34));
        const QString empty = write("empty.pickle", {});
        const QString junk = write("junk.bin", QByteArray(5000, '\x07'));
        QFile good(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle");
        good.open(QIODevice::ReadOnly);
        const QString cut = write("cut.pickle", good.readAll().left(30000));
        const QString huge = write("huge.pickle", QByteArray("\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x10", 11));
        QTest::newRow("calls code") << QStringList{"summary", evil} << evil + ": byte 2: not a memory snapshot";
        QTest::newRow("empty") << QStringList{"summary", empty} << empty + ": file is empty";
        QTest::newRow("junk") << QStringList{"summary", junk} << junk + ": byte 0: not a memory snapshot";
        QTest::newRow("truncated") << QStringList{"summary", cut} << cut + ": byte ";
        QTest::newRow("huge length") << QStringList{"summary", huge} << huge + ": byte 2: string length";
        QTest::newRow("missing") << QStringList{"summary", dir.filePath("nope.pickle")} << dir.filePath("nope.pickle") + ": no such file";
        QDir().mkpath(dir.filePath("empty"));
        QTest::newRow("folder without snapshots") << QStringList{"summary", dir.filePath("empty")} << dir.filePath("empty") + ": no snapshot files";
        QTest::newRow("no device") << QStringList{"summary", good.fileName(), "--device", "3"} << "--device 3: " + good.fileName() + " has no segments or trace entries on that device";
        QTest::newRow("bad --at") << QStringList{"summary", good.fileName(), "--at", "soon"} << "--at takes peak, oom, end or an event number";
        QTest::newRow("no oom") << QStringList{"summary", good.fileName(), "--at", "oom"} << "has no OOM entry";
        QTest::newRow("fraction without the device") << QStringList{"replay", good.fileName(), "--alloc-conf", "per_process_memory_fraction:0.5"}
                                                     << "--alloc-conf per_process_memory_fraction:0.5: per_process_memory_fraction is a share of the device";
        QTest::newRow("unknown option") << QStringList{"summary", good.fileName(), "--colour"} << "unknown option --colour";
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runMemlens(args);
        QVERIFY2(r.exitCode > 0, qPrintable(QString("exit %1").arg(r.exitCode)));
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err);
        QCOMPARE(err.count('\n'), 1);
        QVERIFY2(err.contains(message), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
