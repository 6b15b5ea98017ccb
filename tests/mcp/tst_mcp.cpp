// `memlens mcp` driven over a pipe as an agent would: initialize, the tool list with schemas,
// each tool on a corpus file with figures equal to the CLI's own JSON for the same question,
// a path outside the root, bad arguments, an unknown method; stdout carries protocol only.
#include "CorpusFiles.h"
#include "SyntheticSnapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QString binary()
{
    return QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
}

QJsonObject cliJson(const QStringList &args)
{
    QProcess p;
    p.start(binary(), args);
    p.waitForFinished(120000);
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

// One server for the whole session, as a client keeps it.
class Session {
public:
    explicit Session(const QString &root = corpusDir())
    {
        process_.setWorkingDirectory(root);
        process_.start(binary(), {"mcp", "--root", root});
        process_.waitForStarted();
    }
    ~Session()
    {
        process_.closeWriteChannel();
        process_.waitForFinished(10000);
    }
    void send(const QJsonObject &message)
    {
        process_.write(QJsonDocument(message).toJson(QJsonDocument::Compact) + "\n");
    }
    void sendRaw(const QByteArray &bytes)
    {
        process_.write(bytes);
    }
    // The next line on stdout, parsed; every line must be one JSON-RPC message.
    QJsonObject receive()
    {
        while (!process_.canReadLine()) {
            if (!process_.waitForReadyRead(120000))
                return {};
        }
        const QByteArray line = process_.readLine();
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject() || doc.object()["jsonrpc"] != "2.0")
            qWarning("not a JSON-RPC line on stdout: %s", line.constData());
        return doc.object();
    }
    QJsonObject request(const QString &method, const QJsonObject &params = {})
    {
        send({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}});
        const QJsonObject reply = receive();
        if (reply["id"].toInt() != id_)
            qWarning("reply to %d expected, got %s", id_, QJsonDocument(reply).toJson().constData());
        return reply;
    }
    QJsonObject call(const QString &tool, const QJsonObject &arguments)
    {
        return request("tools/call", {{"name", tool}, {"arguments", arguments}});
    }
    QJsonObject structured(const QString &tool, const QJsonObject &arguments)
    {
        const QJsonObject reply = call(tool, arguments);
        if (reply.contains("error"))
            qWarning("%s: %s", qPrintable(tool), QJsonDocument(reply["error"].toObject()).toJson().constData());
        return reply["result"].toObject()["structuredContent"].toObject();
    }

private:
    QProcess process_;
    int id_ = 0;
};

} // namespace

class TestMcp : public QObject {
    Q_OBJECT

private slots:
    void session()
    {
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        Session s;
        const QJsonObject init = s.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject{}},
                                                          {"clientInfo", QJsonObject{{"name", "tst_mcp"}, {"version", "1"}}}});
        QCOMPARE(init["result"].toObject()["protocolVersion"].toString(), QString("2025-06-18"));
        QVERIFY(init["result"].toObject()["capabilities"].toObject().contains("tools"));
        s.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}); // no reply to a notification
        QVERIFY(s.request("ping")["result"].isObject());

        const QJsonArray tools = s.request("tools/list")["result"].toObject()["tools"].toArray();
        QVERIFY(tools.size() >= 9);
        QStringList names;
        for (const QJsonValue &t : tools) {
            names << t["name"].toString();
            QCOMPARE(t["inputSchema"].toObject()["type"].toString(), QString("object"));
            QVERIFY(!t["inputSchema"].toObject()["properties"].toObject().isEmpty());
            QVERIFY(!t["description"].toString().isEmpty());
        }
        for (const char *n : {"summary", "live_at", "allocator_state", "stacks", "advise", "replay", "diff", "steps_and_leaks", "search"})
            QVERIFY2(names.contains(n), n);

        // summary: the CLI's figures.
        const QJsonObject cli = cliJson({"summary", oom, "--json"})["devices"].toArray()[0].toObject();
        const QJsonObject summary = s.structured("summary", {{"path", oom}})["device"].toObject();
        for (const char *key : {"peak_active_bytes", "peak_index", "peak_reserved_bytes", "entries"})
            QVERIFY2(summary[key] == cli[key], key);
        QCOMPARE(summary["peak_active_bytes_text"].toString().isEmpty(), false);
        QCOMPARE(summary["oom_entries"].toArray()[0].toObject()["verdict"], cli["oom_entries"].toArray()[0].toObject()["verdict"]);

        // live_at / allocator_state: summary --at.
        const QJsonObject cliAt = cliJson({"summary", oom, "--json", "--at", "oom"})["devices"].toArray()[0].toObject()["at"].toObject();
        const QJsonObject live = s.structured("live_at", {{"path", oom}, {"at", "oom"}, {"top", 3}});
        QCOMPARE(live["event"], cliAt["index"]);
        QCOMPARE(live["live"].toObject()["active_bytes"], cliAt["active_bytes"]);
        QCOMPARE(live["live"].toObject()["top_live"].toArray().size(), 3);
        QVERIFY(live["live"].toObject()["top_live"].toArray()[0].toObject()["frames"].isArray());
        const QJsonObject allocator = s.structured("allocator_state", {{"path", oom}, {"at", "oom"}})["allocator"].toObject();
        for (const char *key : {"segments", "reserved_bytes", "allocated_bytes", "free_bytes", "largest_free_bytes"})
            QVERIFY2(allocator[key] == cliAt["allocator"][key], key);

        // stacks: the paths' bytes add up to what is live there.
        const QJsonObject stacks = s.structured("stacks", {{"path", oom}, {"at", "oom"}, {"top", 100}});
        qint64 sum = 0;
        for (const QJsonValue &p : stacks["paths"].toArray())
            sum += p["bytes"].toInteger();
        QCOMPARE(stacks["live_bytes"].toInteger(), cliAt["active_bytes"].toInteger());
        QCOMPARE(sum, stacks["live_bytes"].toInteger());

        // advise and replay: the CLI's fixes and the replay's peak.
        const QJsonObject cliAdvice = cliJson({"advise", oom, "--json"});
        const QJsonObject advice = s.structured("advise", {{"path", oom}});
        QCOMPARE(advice["fixes"].toArray()[0].toObject()["technique"], cliAdvice["fixes"].toArray()[0].toObject()["technique"]);
        QCOMPARE(advice["fixes"].toArray()[0].toObject()["saves_bytes"], cliAdvice["fixes"].toArray()[0].toObject()["saves_bytes"]);
        QCOMPARE(advice["capacity_bytes"], cliAdvice["capacity_bytes"]);
        // gpu and capacity are read by the command line's rule (CapacityOption): the same capacity,
        // the device total it implies, and the same sentence for the same mistake.
        const QJsonObject cliOnGpu = cliJson({"advise", oom, "--json", "--gpu", "a100-40"});
        const QJsonObject onGpu = s.structured("advise", {{"path", oom}, {"gpu", "a100-40"}});
        QVERIFY(onGpu["capacity_bytes"].toInteger() > 0);
        for (const char *key : {"capacity_bytes", "capacity_how", "outside_allocator_bytes"})
            QVERIFY2(onGpu[key] == cliOnGpu[key], key);
        QProcess both;
        both.start(binary(), {"advise", oom, "--gpu", "a100-40", "--capacity", "1000"});
        QVERIFY(both.waitForFinished(120000));
        const QString cliSentence = QString::fromUtf8(both.readAllStandardError()).trimmed();
        QVERIFY2(cliSentence.endsWith("give --gpu or --capacity, not both"), qPrintable(cliSentence));
        const QString mcpSentence = s.call("advise", {{"path", oom}, {"gpu", "a100-40"}, {"capacity", 1000}})["error"].toObject()["message"].toString();
        QCOMPARE(mcpSentence, QString("gpu: give gpu or capacity, not both"));
        QCOMPARE(s.call("replay", {{"path", oom}, {"gpu", "h999"}})["error"].toObject()["message"].toString(),
                 QString("gpu: unknown gpu h999 (see memlens estimate's presets)"));
        // A share of the device without the device: refused as `memlens replay` refuses it.
        QCOMPARE(s.call("replay", {{"path", oom}, {"alloc_conf", "per_process_memory_fraction:0.5"}})["error"].toObject()["message"].toString(),
                 QString("alloc_conf per_process_memory_fraction:0.5: per_process_memory_fraction is a share of the device: name the GPU (gpu, --gpu PRESET) for its total memory"));
        const QJsonObject cliReplay = cliJson({"replay", oom, "--json", "--alloc-conf", "expandable_segments:True"});
        const QJsonObject replay = s.structured("replay", {{"path", oom}, {"alloc_conf", "expandable_segments:True"}});
        QCOMPARE(replay["predicted"].toObject()["peak_reserved_bytes"], cliReplay["predicted"].toObject()["peak_reserved_bytes"]);
        QVERIFY(!replay["predicted"].toObject()["peak_reserved_bytes"].isUndefined());
        // A profiler trace is refused, as `memlens replay` refuses it.
        const QString trace = corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz";
        const QString traceRefused = s.call("replay", {{"path", trace}})["error"].toObject()["message"].toString();
        QVERIFY2(traceRefused.startsWith("path:") && traceRefused.contains("profiler trace"), qPrintable(traceRefused));

        // diff with the gate: B's peak grew past the limit, so the gate fails, as `diff` exits 3.
        const QJsonObject cliDiff = cliJson({"diff", oom, gpt2, "--json"});
        const QJsonObject diff = s.structured("diff", {{"a", oom}, {"b", gpt2}, {"fail_if_peak_grows", 5}});
        for (const char *key : {"peak_active_a", "peak_active_b", "peak_reserved_a", "peak_reserved_b", "differing_sites", "change"})
            QVERIFY2(diff[key] == cliDiff[key], key);
        QProcess gate;
        gate.start(binary(), {"diff", oom, gpt2, "--fail-if-peak-grows", "5"});
        QVERIFY(gate.waitForFinished(120000));
        QCOMPARE(gate.exitCode(), 3);
        QCOMPARE(diff["gate"].toObject()["passed"].toBool(), false);
        QVERIFY(diff["gate"].toObject()["peak_active_growth_percent"].toDouble() > 5);
        QVERIFY(s.structured("diff", {{"a", gpt2}, {"b", oom}, {"fail_if_peak_grows", 5}})["gate"].toObject()["passed"].toBool());

        // steps and leaks, search.
        const QJsonObject cliSteps = cliJson({"summary", gpt2, "--json"})["devices"].toArray()[0].toObject();
        const QJsonObject steps = s.structured("steps_and_leaks", {{"path", gpt2}, {"top", 100}});
        QCOMPARE(steps["steps"].toArray().size(), cliSteps["steps"].toArray().size());
        QCOMPARE(steps["steps"].toArray()[0].toObject()["peak_active_bytes"], cliSteps["steps"].toArray()[0].toObject()["peak_active_bytes"]);
        const QJsonObject search = s.structured("search", {{"path", oom}, {"text", "_init_group"}, {"top", 2}});
        QVERIFY(search["matches"].toInt() > 2);
        QCOMPARE(search["allocations"].toArray().size(), 2);
        QVERIFY(search["allocations"].toArray()[0].toObject()["frames"].toArray().size() > 0);
        // A hit names the allocation as summary --json's top_live does, and the largest live
        // block at the OOM is found by its address with the same fields.
        const QJsonObject largest = cliAt["top_live"].toArray()[0].toObject();
        const QString address = "0x" + QString::number(largest["addr"].toInteger(), 16);
        const QJsonArray byAddress = s.structured("search", {{"path", oom}, {"text", address}, {"top", 100}})["allocations"].toArray();
        const auto same = std::find_if(byAddress.begin(), byAddress.end(), [&](const QJsonValue &hit) { return hit["alloc_index"] == largest["alloc_index"]; });
        QVERIFY2(same != byAddress.end(), qPrintable(address));
        for (auto it = largest.begin(); it != largest.end(); ++it)
            QVERIFY2((*same)[it.key()] == it.value(), qPrintable(it.key()));
        QVERIFY((*same).toObject().contains("free_index"));

        // A path outside the root, a bad argument, an unknown argument, tool and method: JSON-RPC errors naming them.
        const QJsonObject outside = s.call("summary", {{"path", "/etc/hostname"}});
        QCOMPARE(outside["error"].toObject()["code"].toInt(), -32602);
        QVERIFY(outside["error"].toObject()["message"].toString().contains("outside"));
        const QJsonObject badAt = s.call("live_at", {{"path", oom}, {"at", "later"}});
        QCOMPARE(badAt["error"].toObject()["code"].toInt(), -32602);
        QVERIFY(badAt["error"].toObject()["message"].toString().startsWith("at:"));
        const QJsonObject badTop = s.call("stacks", {{"path", oom}, {"top", 1000}});
        QVERIFY(badTop["error"].toObject()["message"].toString().startsWith("top:"));
        const QJsonObject unknownArgument = s.call("summary", {{"path", oom}, {"colour", "red"}});
        QVERIFY(unknownArgument["error"].toObject()["message"].toString().startsWith("colour:"));
        QCOMPARE(s.call("nonesuch", {})["error"].toObject()["code"].toInt(), -32602);
        QCOMPARE(s.request("resources/list")["error"].toObject()["code"].toInt(), -32601);
        // Not JSON at all: a parse error, and the session goes on.
        s.sendRaw("this is not json\n");
        QCOMPARE(s.receive()["error"].toObject()["code"].toInt(), -32700);
        s.send({{"jsonrpc", "2.0"}, {"id", 99}}); // no method
        QCOMPARE(s.receive()["error"].toObject()["code"].toInt(), -32600);
        // Members of the wrong type (the first ended the server, found by fuzz_mcp).
        for (const QByteArray &line : {QByteArray(R"({"jsonrpc": 4, "id": 7, "method": "ping"})"), QByteArray(R"({"jsonrpc": "2.0", "id": 8, "method": 5})"),
                                      QByteArray(R"({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": []})"),
                                      QByteArray(R"({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": 3}})"),
                                      QByteArray(R"({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "summary", "arguments": {"path": 1}}})")}) {
            s.sendRaw(line + "\n");
            QVERIFY2(s.receive().contains("error"), line.constData());
        }
        QVERIFY(s.request("ping")["result"].isObject());
    }

    // Each tool answers as a command does and takes that command's flags under the same names:
    // every argument of a tool (but its operands: path, a, b) is a flag `--help` lists for the
    // command (live_at, allocator_state, stacks, steps_and_leaks and stitch_rank are `summary`'s
    // --at, --folded and DIR forms; search is no command's).
    void argumentsAreTheCommandsFlags()
    {
        QProcess help;
        help.start(binary(), {"--help"});
        QVERIFY(help.waitForFinished(30000));
        const QStringList lines = QString::fromUtf8(help.readAllStandardOutput()).split('\n');
        auto helpOf = [&](const QString &command) {
            QString section;
            bool in = false;
            for (const QString &line : lines) {
                if (line.trimmed().startsWith("memlens "))
                    in = line.trimmed().startsWith("memlens " + command + " ");
                if (in)
                    section += line + "\n";
            }
            return section;
        };
        const QMap<QString, QString> commandOf{{"summary", "summary"}, {"live_at", "summary"}, {"allocator_state", "summary"},
                                               {"stacks", "summary"}, {"steps_and_leaks", "summary"}, {"stitch_rank", "summary"},
                                               {"advise", "advise"}, {"replay", "replay"}, {"diff", "diff"}};
        Session s;
        const QJsonArray tools = s.request("tools/list")["result"].toObject()["tools"].toArray();
        int checked = 0;
        for (const QJsonValue &t : tools) {
            const QString tool = t["name"].toString();
            if (tool == "search")
                continue;
            QVERIFY2(commandOf.contains(tool), qPrintable(tool + " answers as no command this test knows"));
            const QString section = helpOf(commandOf[tool]);
            QVERIFY2(!section.isEmpty(), qPrintable(commandOf[tool]));
            const QJsonObject properties = t["inputSchema"].toObject()["properties"].toObject();
            for (auto it = properties.begin(); it != properties.end(); ++it) {
                if (it.key() == "path" || it.key() == "a" || it.key() == "b")
                    continue;
                const QString flag = "--" + QString(it.key()).replace('_', '-');
                const QRegularExpression listed("\\[" + QRegularExpression::escape(flag) + "[\\] |]|\\s" + QRegularExpression::escape(flag) + " ");
                QVERIFY2(section.contains(listed), qPrintable(tool + "'s argument " + it.key() + " is not " + commandOf[tool] + "'s flag " + flag));
                ++checked;
            }
        }
        QVERIFY(checked >= 25);
    }

    // The tools take exactly the arguments docs/cli.md (made from the table) gives their
    // commands: every option not marked "(not an MCP argument)" is an argument of some tool that
    // answers as its command, and no tool takes one marked so or one its command lacks. (docs/cli.md
    // listed advise's --sort and summary's --gpu and --step, which the server refused.)
    void toolsTakeWhatTheReferenceSays()
    {
        QFile reference(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/docs/cli.md");
        QVERIFY(reference.open(QIODevice::ReadOnly));
        QMap<QString, QSet<QString>> documented; // command → MCP arguments, from the reference's tables
        QString command;
        const QRegularExpression row("^\\| `--?([a-z-]+)[^`]*` \\|.*\\|(.*)\\|$");
        for (const QString &line : QString::fromUtf8(reference.readAll()).split('\n')) {
            if (line.startsWith("## memlens "))
                command = line.mid(11).trimmed();
            const QRegularExpressionMatch m = row.match(line);
            if (m.hasMatch() && !m.captured(2).contains("not an MCP argument"))
                documented[command].insert(m.captured(1).replace('-', '_'));
        }
        const QMap<QString, QString> commandOf{{"summary", "summary"}, {"live_at", "summary"}, {"allocator_state", "summary"},
                                               {"stacks", "summary"}, {"steps_and_leaks", "summary"}, {"stitch_rank", "summary"},
                                               {"search", "summary"}, {"advise", "advise"}, {"replay", "replay"}, {"diff", "diff"}};
        QMap<QString, QSet<QString>> taken;
        Session s;
        for (const QJsonValue &t : s.request("tools/list")["result"].toObject()["tools"].toArray()) {
            const QString tool = t["name"].toString();
            QVERIFY2(commandOf.contains(tool), qPrintable(tool));
            const QJsonObject properties = t["inputSchema"].toObject()["properties"].toObject();
            for (auto it = properties.begin(); it != properties.end(); ++it) {
                if (it.key() == "path" || it.key() == "a" || it.key() == "b" || (tool == "search" && it.key() == "text"))
                    continue; // operands, and search's own text
                taken[commandOf[tool]].insert(it.key());
            }
        }
        for (auto it = taken.begin(); it != taken.end(); ++it) {
            QVERIFY2(it.value() == documented[it.key()],
                     qPrintable(it.key() + ": tools take " + QStringList(it.value().values()).join(',') + ", docs/cli.md says " +
                                QStringList(documented[it.key()].values()).join(',')));
        }
        QCOMPARE(taken.size(), 4);
    }

    // One default per option, from the table: diff's `top` is 20 from the command line and the
    // diff tool alike (the tool took summary's 10), and the schema says so; summary's is 10.
    void defaultsAreTheTables()
    {
        const QString a = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString b = corpusDir() + "/snapshots/resnet50_bf16_sgd/snapshot.pickle"; // 37 sites differ
        Session s;
        const QJsonObject tool = s.structured("diff", {{"a", a}, {"b", b}});
        const QJsonObject cli = cliJson({"diff", a, b, "--json"});
        QCOMPARE(cli["sites"].toArray().size(), 20);
        QCOMPARE(tool["sites"].toArray().size(), cli["sites"].toArray().size());
        for (const QJsonValue &t : s.request("tools/list")["result"].toObject()["tools"].toArray()) {
            const QJsonObject top = t["inputSchema"].toObject()["properties"].toObject()["top"].toObject();
            if (!top.isEmpty())
                QCOMPARE(top["default"].toInt(), t["name"].toString() == "diff" ? 20 : 10);
        }
    }

    // What a hostile or careless client tries: every path is resolved against the root (each file
    // of a folder too), a NUL, a FIFO, an oversized request or search text, a file rewritten
    // with the same size and time, a path that is not UTF-8. Each gets a JSON-RPC error (or the
    // fresh answer) and the server keeps answering.
    // A moment before the first entry (a peak no entry exceeds, on a dump without a trace) is the
    // start: the answers say so, where they once wrote the "none" event as 4294967295.
    // The option table bounds whole numbers for MCP as for the command line (questions/OptionValues;
    // tst_cli::tableBoundsOptions): top 0 and 500, a negative device, no GPUs are refused, worded
    // for a tool call. A device of -1 was taken before, where the schema said minimum 0. (advise's
    // sort is the command line's alone: MCP answers whole lists and refuses it as no argument.)
    void tableBoundsArguments()
    {
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        Session s(corpusDir());
        s.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject()}, {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        const QList<std::tuple<QString, QJsonObject, QString>> refused = {
            {"summary", {{"path", gpt2}, {"top", 0}}, "top: 0 is not a whole number from 1 to 100"},
            {"live_at", {{"path", gpt2}, {"top", 500}}, "top: 500 is not a whole number from 1 to 100"},
            {"summary", {{"path", gpt2}, {"device", -1}}, "device: -1 is not a whole number ≥ 0"},
            {"advise", {{"path", gpt2}, {"sort", "size"}}, "sort: not an argument of advise"},
            {"advise", {{"path", gpt2}, {"gpus", 0}}, "gpus: 0 is not a whole number from 1 to 1048576"},
        };
        for (const auto &[tool, arguments, words] : refused) {
            const QJsonObject error = s.call(tool, arguments)["error"].toObject();
            QCOMPARE(error["code"].toInt(), -32602);
            QCOMPARE(error["message"].toString(), words);
        }
        QVERIFY(!s.structured("summary", {{"path", gpt2}, {"top", 100}, {"device", 0}}).isEmpty());
    }

    void theStartIsNoEvent()
    {
        QTemporaryDir dir;
        SynthSnapshot snap;
        SynthSegment seg;
        seg.address = 1 << 30;
        seg.blocks = {{1024, 1000, "active_allocated", -1}, {(2 << 20) - 1024, 0, "inactive", -1}};
        snap.segments = {seg};
        snap.traces = {{}};
        QFile f(dir.filePath("untraced.pickle"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(snap.pickle()));
        f.close();
        Session s(dir.path());
        s.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject{}}, {"clientInfo", QJsonObject{{"name", "tst_mcp"}, {"version", "1"}}}});
        for (const char *tool : {"live_at", "allocator_state", "stacks"}) {
            const QJsonObject answer = s.structured(tool, {{"path", f.fileName()}, {"at", "peak"}});
            QVERIFY2(answer.contains("event") && answer["event"].isNull(), tool);
        }
        const QJsonObject stacks = s.call("stacks", {{"path", f.fileName()}, {"at", "end"}});
        const QString brief = stacks["result"].toObject()["content"].toArray()[0].toObject()["text"].toString();
        QVERIFY2(brief.contains("(the start)"), qPrintable(brief));
        QVERIFY(cliJson({"advise", f.fileName(), "--json"})["event"].isNull());
    }

    void hostileRequests()
    {
        QTemporaryDir root, outside;
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        QVERIFY(QDir(root.path()).mkpath("ranks"));
        QVERIFY(QFile::copy(gpt2, root.filePath("ranks/rank0_memory_snapshot.pickle")));
        QVERIFY(QFile::copy(oom, outside.filePath("secret.pickle")));
        QVERIFY(QFile::link(outside.filePath("secret.pickle"), root.filePath("ranks/rank1_memory_snapshot.pickle")));
        QVERIFY(::mkfifo(root.filePath("fifo.pickle").toLocal8Bit().constData(), 0600) == 0);
        const std::string latin1 = root.filePath("caf").toStdString() + "\xe9.pickle"; // under the root, loads as nothing
        std::FILE *f = std::fopen(latin1.c_str(), "wb");
        QVERIFY(f);
        std::fputs("not a snapshot", f);
        std::fclose(f);
        QVERIFY(QDir(root.path()).mkpath("linked"));
        QVERIFY(::symlink(latin1.c_str(), root.filePath("linked/link.pickle").toLocal8Bit().constData()) == 0);

        Session s(root.path());
        s.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject()}, {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        // The folder's symlink to a file outside the root is left out, and said so.
        const QJsonObject ranks = s.structured("summary", {{"path", root.filePath("ranks")}});
        QCOMPARE(ranks["ranks"].toArray().size(), 1);
        QVERIFY(QJsonDocument(ranks["notes"].toArray()).toJson().contains("left out"));
        QVERIFY(!QJsonDocument(ranks).toJson().contains("secret"));
        QVERIFY(s.call("stitch_rank", {{"path", root.filePath("ranks")}, {"rank", 1}})["error"].toObject()["message"].toString().startsWith("rank 1: "));
        // A NUL inside the path: refused, not cut short.
        s.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":500,\"method\":\"tools/call\",\"params\":{\"name\":\"summary\",\"arguments\":{\"path\":\"" +
                  root.filePath("ranks/rank0_memory_snapshot.pickle").toUtf8() + "\\u0000.txt\"}}}\n");
        QVERIFY(s.receive()["error"].toObject()["message"].toString().contains("NUL"));
        // A FIFO would block the server: refused before it is opened.
        const QJsonObject fifo = s.call("summary", {{"path", root.filePath("fifo.pickle")}});
        QVERIFY2(fifo["error"].toObject()["message"].toString().contains("not a regular file"), qPrintable(QJsonDocument(fifo).toJson()));
        QVERIFY(s.request("ping")["result"].isObject());
        // A file that fails to load through a symlink to a name that is not UTF-8: an error, well formed.
        const QJsonObject latin = s.call("summary", {{"path", root.filePath("linked/link.pickle")}});
        QCOMPARE(latin["error"].toObject()["code"].toInt(), -32602);
        QVERIFY(latin["error"].toObject()["message"].toString().contains(QChar(0xfffd)));
        // Oversized: a 2 MiB request line, a search text of 2,000 bytes.
        s.sendRaw(QByteArray(2 << 20, 'x') + "\n");
        QCOMPARE(s.receive()["error"].toObject()["code"].toInt(), -32600);
        // Nested 140,000 deep (a 280 KB line) in params, an id, a tool's arguments and a
        // notification: each once ended the server (a stack overflow copying the value).
        const QByteArray deep = QByteArray(140000, '[') + QByteArray(140000, ']');
        for (const QByteArray &line : {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + deep + "}",
                                       "{\"jsonrpc\":\"2.0\",\"id\":" + deep + ",\"method\":\"ping\"}",
                                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"summary\",\"arguments\":{\"path\":" + deep + "}}}"}) {
            s.sendRaw(line + "\n");
            const QJsonObject refused = s.receive();
            QCOMPARE(refused["error"].toObject()["code"].toInt(), -32600);
            QVERIFY2(refused["error"].toObject()["message"].toString().contains("nested deeper"), qPrintable(QJsonDocument(refused).toJson()));
        }
        s.sendRaw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":" + deep + "}\n");
        QCOMPARE(s.receive()["error"].toObject()["code"].toInt(), -32600); // its id unread: refused like a request
        // Brackets inside strings are text, not nesting.
        QCOMPARE(s.call("summary", {{"path", QString(100, '[')}})["error"].toObject()["code"].toInt(), -32602);
        QVERIFY(s.request("ping")["result"].isObject());
        const QJsonObject search = s.call("search", {{"path", root.filePath("ranks/rank0_memory_snapshot.pickle")}, {"text", QString(2000, 'a')}});
        QVERIFY(search["error"].toObject()["message"].toString().startsWith("text:"));
        QVERIFY(s.request("ping")["result"].isObject());
        // Rewritten in place with the same size and modification time (cp -p, rsync -t): decoded again.
        const QString copy = root.filePath("copy.pickle");
        QVERIFY(QFile::copy(gpt2, copy));
        QCOMPARE(s.structured("search", {{"path", copy}, {"text", "xm_steps"}})["matches"].toInt(), 0);
        QFile in(gpt2);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        bytes.replace("lm_steps", "xm_steps");
        const QDateTime modified = QFileInfo(copy).lastModified();
        QFile out(copy);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate) && out.write(bytes) == bytes.size());
        QVERIFY(out.setFileTime(modified, QFileDevice::FileModificationTime));
        out.close();
        QCOMPARE(QFileInfo(copy).size(), QFileInfo(gpt2).size());
        QVERIFY(s.structured("search", {{"path", copy}, {"text", "xm_steps"}})["matches"].toInt() > 0);
        std::remove(latin1.c_str()); // Qt cannot name it to remove it
    }

    // A tool call runs on its own: a ping sent after it is answered first, and a call cancelled
    // before it started is never answered (a ping waited for the whole tool before).
    void answersWhileAToolRuns()
    {
        const QString frag = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
        Session s;
        s.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject()}, {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        auto call = [](int id, const QString &tool, const QJsonObject &arguments) {
            return QJsonObject{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", QJsonObject{{"name", tool}, {"arguments", arguments}}}};
        };
        s.send(call(900, "advise", {{"path", frag}, {"capacity", qint64(8000000000)}}));
        s.send(call(901, "summary", {{"path", frag}}));
        s.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", QJsonObject{{"requestId", 901}}}});
        s.send({{"jsonrpc", "2.0"}, {"id", 902}, {"method", "ping"}});
        QCOMPARE(s.receive()["id"].toInt(), 902);
        const QJsonObject advised = s.receive();
        QCOMPARE(advised["id"].toInt(), 900);
        QVERIFY(advised.contains("result"));
        s.send({{"jsonrpc", "2.0"}, {"id", 903}, {"method", "ping"}});
        QCOMPARE(s.receive()["id"].toInt(), 903); // nothing for 901 came in between
    }

    // stitch_rank answers what `summary DIR --rank R --stitch --json` prints.
    void stitchRank()
    {
        QTemporaryDir dir;
        QString error;
        runPythonTool("cut_dumps.py", {corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst", dir.path(), "--every", "5", "--window", "6000"}, &error);
        QVERIFY2(QDir(dir.path()).exists("iteration_10"), qPrintable(error));
        Session session(dir.path());
        session.request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", QJsonObject()}, {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        const QJsonObject got = session.structured("stitch_rank", {{"path", dir.path()}, {"rank", 0}});
        const QJsonObject cli = cliJson({"summary", dir.path(), "--rank", "0", "--stitch", "--json"});
        QCOMPARE(got["gaps"].toArray().size(), 4);
        QCOMPARE(got["gaps"].toArray(), cli["gaps"].toArray());
        QCOMPARE(got["dumps"].toArray().size(), cli["dumps"].toArray().size());
        const QJsonObject a = got["devices"].toArray()[0].toObject(), b = cli["devices"].toArray()[0].toObject();
        QCOMPARE(a["peak_active_bytes"], b["peak_active_bytes"]);
        QCOMPARE(a["steps"].toArray().size(), b["steps"].toArray().size());
        QVERIFY(session.call("stitch_rank", {{"path", dir.path()}, {"rank", 7}})["error"].toObject()["message"].toString().startsWith("rank 7: "));
    }
};

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"
