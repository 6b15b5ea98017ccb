// Who allocated it: the site rule (attribution/) against stacks classified by hand
// (stacks.txt: real ones from the corpus and ones written from torch's sources), and on every
// corpus file and generated mixed-stack files, no site is machinery.
#include "CorpusFiles.h"
#include "views/CallTree.h"
#include "index/DeviceIndex.h"
#include "index/FrameFilter.h"
#include "figures/SnapshotSummary.h"
#include "attribution/AllocationSite.h"
#include "attribution/FrameRole.h"
#include "decode/SnapshotLoader.h"
#include "report/SummaryReport.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace memlens;

namespace {

struct HandFrame {
    QChar role;
    bool site = false;
    QString file, name;
    int line = 0;
};

struct HandStack {
    QString title, site, via, op;
    std::vector<HandFrame> frames;
};

std::vector<HandStack> handStacks()
{
    QFile f(QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/tests/attribution/stacks.txt");
    if (!f.open(QIODevice::ReadOnly))
        return {};
    std::vector<HandStack> stacks;
    for (const QString &raw : QString::fromUtf8(f.readAll()).split('\n')) {
        if (raw.startsWith('#') || raw.trimmed().isEmpty())
            continue;
        if (raw.startsWith("stack ")) {
            stacks.push_back({raw.mid(6), {}, {}, {}, {}});
            continue;
        }
        if (raw.startsWith("expect ")) {
            const QStringList parts = raw.mid(7).split(" | ");
            stacks.back().site = parts.value(0);
            stacks.back().via = parts.value(1) == "-" ? QString() : parts.value(1);
            stacks.back().op = parts.value(2) == "-" ? QString() : parts.value(2);
            continue;
        }
        HandFrame frame;
        frame.role = raw[0];
        frame.site = raw[1] == '*';
        const QStringList parts = raw.mid(3).split(" | ");
        frame.file = parts.value(0);
        frame.line = parts.value(1).toInt();
        frame.name = parts.mid(2).join(" | "); // names never hold " | ", but keep them whole
        if (frame.name.endsWith(" |") || raw.endsWith("|"))
            frame.name.clear();
        stacks.back().frames.push_back(frame);
    }
    return stacks;
}

QChar letterOf(FrameRole role)
{
    switch (role) {
    case FrameRole::UserCode: return 'U';
    case FrameRole::TorchPython: return 'T';
    case FrameRole::StdlibPython: return 'S';
    case FrameRole::Operator: return 'O';
    case FrameRole::NativeCode: return 'N';
    case FrameRole::Annotation: return 'A';
    case FrameRole::Machinery: return 'M';
    }
    return '?';
}

// A snapshot holding the hand stacks, stack i at id i + 1 (0 is the empty stack).
Snapshot snapshotOf(const std::vector<HandStack> &stacks)
{
    Snapshot s;
    for (const HandStack &h : stacks) {
        std::vector<FrameId> ids;
        for (const HandFrame &f : h.frames) {
            Frame frame;
            frame.name = s.strings.intern(f.name.toStdString());
            frame.file = s.strings.intern(f.file.toStdString());
            frame.line = f.line;
            ids.push_back(s.frames.intern(frame));
        }
        s.stacks.intern(ids);
    }
    return s;
}

bool isMachinery(const Snapshot &s, FrameId id)
{
    const Frame &f = s.frames.at(id);
    const FrameRole role = frameRole(s.strings.at(f.name), s.strings.at(f.file));
    return role == FrameRole::Machinery || role == FrameRole::Annotation;
}

// Every stack of the file: its site is never machinery, and exists wherever a frame that is not
// machinery does.
void checkSitesOf(const Snapshot &s, const QString &what)
{
    for (uint32_t i = 0; i < s.stacks.size(); ++i) {
        const StackId stack(i);
        const AllocationSite site = allocationSite(s, stack);
        bool anyWork = false;
        for (FrameId id : s.stacks.at(stack))
            anyWork = anyWork || !isMachinery(s, id);
        QVERIFY2(site.site.isNone() != anyWork, qPrintable(what + QString(": stack %1").arg(i)));
        if (!site.site.isNone())
            QVERIFY2(!isMachinery(s, site.site), qPrintable(what + ": " + QString::fromStdString(s.frameText(site.site))));
    }
}

QString generated(QTemporaryDir &dir, const QString &tool, const QStringList &args, const QString &out)
{
    QString error;
    runPythonTool(tool, args, &error);
    return error.isEmpty() && QFile::exists(dir.filePath(out)) ? dir.filePath(out) : QString();
}

} // namespace

class TestAttribution : public QObject {
    Q_OBJECT

private slots:
    void handClassifiedFrames()
    {
        const std::vector<HandStack> stacks = handStacks();
        QVERIFY(stacks.size() >= 12);
        int frames = 0;
        for (const HandStack &h : stacks) {
            for (const HandFrame &f : h.frames) {
                const QChar got = letterOf(frameRole(f.name.toStdString(), f.file.toStdString()));
                QVERIFY2(got == f.role, qPrintable(QString("%1: %2 | %3 is %4, not %5").arg(h.title, f.file, f.name.left(90)).arg(got).arg(f.role)));
                ++frames;
            }
        }
        QVERIFY(frames > 150);
    }

    void handClassifiedSites()
    {
        const std::vector<HandStack> stacks = handStacks();
        const Snapshot s = snapshotOf(stacks);
        for (uint32_t i = 0; i < stacks.size(); ++i) {
            const HandStack &h = stacks[i];
            const AllocationSite site = allocationSite(s, StackId(i + 1));
            QCOMPARE(QString::fromStdString(siteText(s, site)), h.site);
            QCOMPARE(QString::fromStdString(viaText(s, site)), h.via);
            QCOMPARE(QString::fromStdString(site.op), h.op);
            // The frame marked by hand is the one chosen.
            for (size_t k = 0; k < h.frames.size(); ++k) {
                if (h.frames[k].site)
                    QCOMPARE(site.site, s.stacks.at(StackId(i + 1))[k]);
            }
        }
    }

    void noMachinerySite_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : corpusSnapshots())
            QTest::newRow(qPrintable(QFileInfo(f).dir().dirName() + "/" + QFileInfo(f).fileName())) << f;
        QTest::newRow("profiler trace") << corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz";
    }
    void noMachinerySite()
    {
        QFETCH(QString, file);
        const auto snapshot = loadSnapshot(file.toStdString());
        checkSitesOf(*snapshot, file);
    }

    // Files as large jobs write them: C++ and Python frames (torch's default), FSDP2's marks,
    // the first-iteration OOM, and 2026's fields (pools, annotate, FX frames).
    void noMachinerySiteOnGeneratedFiles()
    {
        QTemporaryDir dir;
        const QString cpp = corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz";
        const QString oom = generated(dir, "make_layer_marks.py", {cpp, dir.filePath("fsdp_oom.pickle"), "--framework", "fsdp2", "--drop-user-marks", "--oom-in-first-step"}, "fsdp_oom.pickle");
        QVERIFY(!oom.isEmpty());
        checkSitesOf(*loadSnapshot(oom.toStdString()), oom);
        const QString newer = generated(dir, "make_newer_snapshot.py", {cpp, dir.path()}, "newer.pickle");
        QVERIFY(!newer.isEmpty());
        checkSitesOf(*loadSnapshot(newer.toStdString()), newer);
    }

    // The file the issue names: with C++ stacks every one of the ten largest at the peak was
    // the caching allocator's malloc. Now each names Python code (a user's or a library's) or a
    // kernel, and the summary JSON carries it beside the whole stack.
    void cppStacksNameTheCode()
    {
        const QString file = corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz";
        const auto snapshot = loadSnapshot(file.toStdString());
        const DeviceIndex index(*snapshot, 0);
        DeviceReport report{summarizeDevice(*snapshot, index, 10), std::nullopt, std::nullopt};
        QCOMPARE(report.summary.topLiveAtPeak.size(), size_t(10));
        const nlohmann::json json = summaryJsonObject(*snapshot, file.toStdString(), {report});
        int python = 0;
        for (const auto &entry : json["devices"][0]["top_live_at_peak"]) {
            const std::string site = entry["site"].get<std::string>();
            QVERIFY2(site.find("CachingAllocator") == std::string::npos && site.find("malloc") == std::string::npos, site.c_str());
            python += site.find(".py:") != std::string::npos;
            QVERIFY(entry["frames"].size() >= 4); // the stack (its noise folded) stays beside the site
            QVERIFY(entry.contains("site_op"));
        }
        QVERIFY(python >= 6);
        for (const auto &entry : json["devices"][0]["leak_suspects"])
            QVERIFY(entry.contains("site"));
    }

    // `diff` by call site and the flame graph read the same rule: no site row is the allocator,
    // and no tree row is without a name.
    // C++ stacks with "hide noise frames" on read as steps, not signatures: an operator is
    // "aten::NAME", other C++ its function without parameters, an operator's own kernel beside it
    // and an operator repeated below itself are folded (the flame graph ended in 2-4 levels of
    // ??:0:at::_ops::…, and a tooltip opened with four multi-line at::native::_to_copy(…)).
    void cppNoiseFoldsToSteps()
    {
        auto s = loadSnapshot((corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz").toStdString());
        size_t cppFrames = 0, shownBefore = 0, shownAfter = 0;
        for (size_t k = 0; k < s->stacks.size(); ++k) {
            const StackId stack(static_cast<uint32_t>(k));
            const std::vector<FrameId> shown = stackFrames(*s, stack, true);
            std::string previous;
            for (FrameId id : shown) {
                const Frame &f = s->frames.at(id);
                const FrameRole role = frameRole(s->strings.at(f.name), s->strings.at(f.file));
                const std::string text = shownFrameText(*s, id);
                if (role == FrameRole::Operator || role == FrameRole::NativeCode) {
                    ++cppFrames;
                    // Outside template arguments and "(anonymous namespace)", no parenthesis: no parameter list.
                    std::string bare;
                    int depth = 0;
                    for (char c : text) {
                        depth += c == '<' ? 1 : c == '>' ? -1 : 0;
                        if (depth == 0 && c != '>')
                            bare += c;
                    }
                    if (const size_t anon = bare.find("(anonymous namespace)"); anon != std::string::npos)
                        bare.erase(anon, 21);
                    QVERIFY2(bare.find('(') == std::string::npos, text.c_str());
                    if (role == FrameRole::Operator)
                        QVERIFY2(text.starts_with("aten::") && text != previous, text.c_str());
                }
                previous = text;
            }
            // Fewer frames than the machinery-only rule kept.
            shownAfter += shown.size();
            for (FrameId id : s->stacks.at(stack)) {
                const Frame &f = s->frames.at(id);
                shownBefore += frameRole(s->strings.at(f.name), s->strings.at(f.file)) != FrameRole::Machinery;
            }
        }
        QVERIFY(cppFrames > 100);
        QVERIFY2(shownAfter < shownBefore, qPrintable(QString("%1 frames shown, %2 before").arg(shownAfter).arg(shownBefore)));
    }

    void diffAndTreesUseTheRule()
    {
        const auto snapshot = loadSnapshot((corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz").toStdString());
        const DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 1);
        const auto sites = diffBySite(*snapshot, index, TracePoint::start(), *snapshot, index, index.peak());
        QVERIFY(sites.size() > 5);
        for (const SiteDiff &d : sites)
            QVERIFY2(d.site.find("CachingAllocator") == std::string::npos && d.site.find("unwind") == std::string::npos, d.site.c_str());
        for (bool hideNoise : {true, false}) {
            CallTreeOptions options;
            options.hideNoise = hideNoise;
            const CallTree tree(*snapshot, index, index.liveAt(index.peak()), options);
            for (uint32_t n = 1; n < tree.size(); ++n) {
                const std::string label = tree.label(CallTreeNodeId(n));
                QVERIFY2(!label.empty() && !label.ends_with(':'), label.c_str());
                if (hideNoise)
                    QVERIFY2(label.find("CUDACachingAllocator") == std::string::npos, label.c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestAttribution)
#include "tst_attribution.moc"
