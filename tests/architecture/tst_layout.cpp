// The code's own rules, checked on the source tree: layers only include downwards
// (app → viewer → parsers), the core's folders stand on the floors docs/DESIGN.md lists, no
// layer's folders include each other in a loop, each layer is split into feature folders, files
// and functions stay small, and facts that once had several copies keep one owner.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <functional>

namespace {

QString sourceDir()
{
    return QString::fromUtf8(MEMLENS_SOURCE_DIR);
}

struct SourceFile {
    QString path; // relative to the source directory
    QString text;
};

QList<SourceFile> sources(const QString &layer)
{
    QList<SourceFile> files;
    QDirIterator it(sourceDir() + "/" + layer, {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly))
            files.append({QDir(sourceDir()).relativeFilePath(f.fileName()), QString::fromUtf8(f.readAll())});
    }
    return files;
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
QString headingAnchor(QString heading)
{
    static const QRegularExpression punctuation(QStringLiteral("[^\\w\\- ]"), QRegularExpression::UseUnicodePropertiesOption);
    return heading.trimmed().toLower().remove(punctuation).replace(' ', '-');
}

QString withoutCodeBlocks(QString markdown)
{
    static const QRegularExpression code(QStringLiteral("```.*?```"), QRegularExpression::DotMatchesEverythingOption);
    return markdown.remove(code);
}

// The links of a Markdown file (relative to `dir`) whose file or heading does not exist.
QStringList brokenLinks(const QString &markdown, const QString &dir)
{
    static const QRegularExpression link(QStringLiteral(R"(\]\(([^)\s]+)\))"));
    static const QRegularExpression heading(QStringLiteral("^#+ (.*)$"), QRegularExpression::MultilineOption);
    QStringList broken;
    const QString text = withoutCodeBlocks(markdown);
    for (auto m = link.globalMatch(text); m.hasNext();) {
        const QString target = m.next().captured(1);
        if (target.contains(':'))
            continue; // a URL
        const QString path = target.section('#', 0, 0), anchor = target.section('#', 1);
        QString linked = markdown;
        if (!path.isEmpty()) {
            QFile f(dir + "/" + path);
            if (!f.exists()) {
                broken << target;
                continue;
            }
            if (!path.endsWith(".md") || anchor.isEmpty() || !f.open(QIODevice::ReadOnly))
                continue;
            linked = QString::fromUtf8(f.readAll());
        }
        if (anchor.isEmpty())
            continue;
        bool found = false;
        for (auto h = heading.globalMatch(withoutCodeBlocks(linked)); h.hasNext() && !found;)
            found = headingAnchor(h.next().captured(1)) == anchor;
        if (!found)
            broken << target;
    }
    return broken;
}

QStringList quotedIncludes(const QString &text)
{
    QStringList out;
    static const QRegularExpression re(QStringLiteral("^#include \"([^\"]+)\""), QRegularExpression::MultilineOption);
    for (auto m = re.globalMatch(text); m.hasNext();)
        out << m.next().captured(1);
    return out;
}

bool existsIn(const QString &layer, const QString &include)
{
    return QFile::exists(sourceDir() + "/" + layer + "/" + include);
}

// The folder ("." at the root) a file lives in, given its path relative to its layer, at `depth`
// levels: 1 for the layer's own folders, 0 for the whole path.
QString folderOf(const QString &relativeToLayer, int depth)
{
    QStringList parts = relativeToLayer.split('/');
    parts.removeLast();
    if (parts.isEmpty())
        return QStringLiteral(".");
    return depth ? parts.mid(0, depth).join('/') : parts.join('/');
}

// The includes between folders of one layer, as folder → folders it includes. An include is
// resolved beside the including file first, then from the layer's root, as the compiler does.
QMap<QString, QSet<QString>> folderGraph(const QString &layer, int depth)
{
    QMap<QString, QSet<QString>> graph;
    const QString root = sourceDir() + "/" + layer + "/";
    for (const SourceFile &f : sources(layer)) {
        const QString rel = f.path.mid(layer.size() + 1);
        const QString from = folderOf(rel, depth);
        graph[from];
        const QString dir = rel.contains('/') ? rel.section('/', 0, -2) + "/" : QString();
        for (const QString &inc : quotedIncludes(f.text)) {
            QString target;
            if (QFile::exists(root + dir + inc))
                target = QDir::cleanPath(dir + inc);
            else if (QFile::exists(root + inc))
                target = inc;
            else
                continue; // another layer's, or a system header
            const QString to = folderOf(target, depth);
            if (to != from)
                graph[from].insert(to);
        }
    }
    return graph;
}

// A loop in `graph` as "a → b → a", or empty.
QString findLoop(const QMap<QString, QSet<QString>> &graph)
{
    QMap<QString, int> state; // 1: on the path, 2: done
    QStringList path;
    std::function<QString(const QString &)> visit = [&](const QString &node) -> QString {
        state[node] = 1;
        path << node;
        QStringList next(graph.value(node).begin(), graph.value(node).end());
        next.sort();
        for (const QString &to : next) {
            if (state.value(to) == 1)
                return (path.mid(path.indexOf(to)) << to).join(" → ");
            if (!state.value(to)) {
                if (const QString loop = visit(to); !loop.isEmpty())
                    return loop;
            }
        }
        state[node] = 2;
        path.removeLast();
        return {};
    };
    for (auto it = graph.begin(); it != graph.end(); ++it) {
        if (!state.value(it.key())) {
            if (const QString loop = visit(it.key()); !loop.isEmpty())
                return loop;
        }
    }
    return {};
}

// The core's floors as docs/DESIGN.md lists them, top floor first: folder → floor (0 the ground).
QMap<QString, int> coreFloors()
{
    QFile design(sourceDir() + "/docs/DESIGN.md");
    if (!design.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(design.readAll());
    const qsizetype marker = text.indexOf("<!-- floors:");
    const qsizetype open = text.indexOf("```\n", marker);
    const qsizetype close = text.indexOf("```", open + 4);
    if (marker < 0 || open < 0 || close < 0)
        return {};
    const QStringList lines = text.mid(open + 4, close - open - 4).split('\n', Qt::SkipEmptyParts);
    QMap<QString, int> floors;
    static const QRegularExpression folders(QStringLiteral("^([a-z]+(?:, [a-z]+)*)\\s"));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const auto m = folders.match(lines[i]);
        if (!m.hasMatch())
            return {};
        for (const QString &folder : m.captured(1).split(", "))
            floors.insert(folder, int(lines.size() - 1 - i));
    }
    return floors;
}

// The text without comments, string and character literals (their lines kept), so braces
// count as the compiler sees them.
QString codeOnly(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        const QChar next = i + 1 < text.size() ? text[i + 1] : QChar();
        if (c == '/' && next == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            out += '\n';
        } else if (c == '/' && next == '*') {
            const qsizetype end = text.indexOf("*/", i + 2);
            const qsizetype stop = end < 0 ? text.size() : end + 2;
            out += QString(text.mid(i, stop - i).count('\n'), '\n');
            i = stop - 1;
        } else if (c == 'R' && next == '"') {
            const qsizetype open = text.indexOf('(', i);
            const QString close = ")" + text.mid(i + 2, open - i - 2) + "\"";
            const qsizetype end = text.indexOf(close, open);
            const qsizetype stop = end < 0 ? text.size() : end + close.size();
            out += "\"\"" + QString(text.mid(i, stop - i).count('\n'), '\n');
            i = stop - 1;
        } else if (c == '"' || (c == '\'' && !(i > 0 && text[i - 1].isLetterOrNumber()))) {
            qsizetype j = i + 1;
            while (j < text.size() && text[j] != c && text[j] != '\n')
                j += text[j] == '\\' ? 2 : 1;
            out += QString(2, c);
            i = j;
        } else {
            out += c;
        }
    }
    return out;
}

// Functions with bodies longer than `limit` lines, as "path:line name (N lines)". A body opens
// with a brace after a parameter list, outside any other function.
QStringList longFunctions(const SourceFile &f, int limit)
{
    static const QRegularExpression signature(QStringLiteral(R"(\)\s*(const|noexcept|override|final|mutable|->[^{;]*|\s)*$)"));
    static const QRegularExpression control(QStringLiteral(R"(\b(if|for|while|switch|catch)\s*\()"));
    static const QRegularExpression scope(QStringLiteral(R"(\b(namespace|class|struct|union|enum)\b[^;{}()]*$|^extern\s)"));
    const QString code = codeOnly(f.text);
    struct Open {
        bool function;
        bool container; // a namespace or class: functions may open inside it
        int line;
        QString head;
    };
    QList<Open> open;
    QStringList found;
    int line = 1;
    qsizetype last = 0;
    for (qsizetype i = 0; i < code.size(); ++i) {
        const QChar c = code[i];
        if (c == '\n') {
            ++line;
        } else if (c == '{') {
            const QString head = code.mid(last, i - last).trimmed();
            const QString headLine = head.section('\n', -1).trimmed();
            const bool container = head.contains(scope);
            const bool outside = std::all_of(open.begin(), open.end(), [](const Open &o) { return o.container; });
            const bool function = !container && outside && head.contains(signature) && !headLine.contains(control);
            // The function's name: the word before the parameter list's opening parenthesis.
            static const QRegularExpression name(QStringLiteral(R"(([\w:~]+)\s*\()"));
            open.append({function, container, line, name.match(QString(head).replace('\n', ' ')).captured(1)});
            last = i + 1;
        } else if (c == '}') {
            if (!open.isEmpty()) {
                const Open o = open.takeLast();
                if (o.function && line - o.line + 1 > limit)
                    found << QString("%1:%2 %3() (%4 lines)").arg(f.path).arg(o.line).arg(o.head).arg(line - o.line + 1);
            }
            last = i + 1;
        } else if (c == ';') {
            last = i + 1;
        }
    }
    return found;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void layersIncludeOnlyDownwards()
    {
        for (const SourceFile &f : sources("parsers")) {
            for (const QString &inc : quotedIncludes(f.text))
                QVERIFY2(existsIn("parsers", inc), qPrintable(f.path + " includes " + inc + ", which is not in parsers/"));
            QVERIFY2(!f.text.contains("#include <Q"), qPrintable(f.path + ": parsers/ is Qt-free"));
        }
        for (const SourceFile &f : sources("viewer")) {
            for (const QString &inc : quotedIncludes(f.text))
                QVERIFY2(existsIn("viewer", inc) || existsIn("parsers", inc), qPrintable(f.path + " includes " + inc + ", which is above viewer/"));
        }
    }

    // The core's folders stand on the floors docs/DESIGN.md lists: each includes only folders on
    // lower floors. Every folder of parsers/ has a floor and every floor's folder exists.
    void coreIncludesOnlyFloorsBelow()
    {
        const QMap<QString, int> floors = coreFloors();
        QVERIFY2(!floors.isEmpty(), "docs/DESIGN.md has no readable floors table");
        const QStringList folders = QDir(sourceDir() + "/parsers").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &folder : folders)
            QVERIFY2(floors.contains(folder), qPrintable("parsers/" + folder + " has no floor in docs/DESIGN.md"));
        for (auto it = floors.begin(); it != floors.end(); ++it)
            QVERIFY2(folders.contains(it.key()), qPrintable("docs/DESIGN.md names a floor for parsers/" + it.key() + ", which does not exist"));
        const QMap<QString, QSet<QString>> graph = folderGraph("parsers", 1);
        for (auto it = graph.begin(); it != graph.end(); ++it) {
            for (const QString &to : it.value())
                QVERIFY2(floors.value(to) < floors.value(it.key()),
                         qPrintable("parsers/" + it.key() + " includes parsers/" + to + ", which is not on a floor below it"));
        }
    }

    // No layer's folders (and no folders inside them) include each other round in a loop.
    void noFolderLoops()
    {
        for (const QString layer : {"parsers", "viewer", "app"}) {
            for (const int depth : {1, 0}) {
                const QString loop = findLoop(folderGraph(layer, depth));
                QVERIFY2(loop.isEmpty(), qPrintable(layer + "/: its folders include each other in a loop: " + loop));
            }
        }
    }

    // The check above finds a loop where there is one.
    void loopFinderFindsLoops()
    {
        QMap<QString, QSet<QString>> graph{{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}, {"d", {"a"}}};
        QCOMPARE(findLoop(graph), QStringLiteral("a → b → c → a"));
        graph["c"] = {};
        QVERIFY(findLoop(graph).isEmpty());
    }

    // Inside viewer/, the shell (document/) holds every page and nothing below it includes the
    // shell; what every page shares (state/) and background work (jobs/) include no page.
    void sharedStateBelowPages()
    {
        for (const SourceFile &f : sources("viewer")) {
            const QString folder = f.path.section('/', 1, 1);
            for (const QString &inc : quotedIncludes(f.text)) {
                if (!existsIn("viewer", inc))
                    continue; // parsers/
                const QString target = inc.section('/', 0, 0);
                if (folder != "document")
                    QVERIFY2(target != "document", qPrintable(f.path + " includes the shell: " + inc));
                if (folder == "state" || folder == "jobs")
                    QVERIFY2(target == "state" || target == "jobs" || target == "style",
                             qPrintable(f.path + " (shared by every page) includes a page: " + inc));
            }
        }
    }

    void featureFolders()
    {
        for (const QString layer : {"parsers", "viewer"}) {
            const QDir dir(sourceDir() + "/" + layer);
            QVERIFY2(dir.entryList({"*.h", "*.cpp"}, QDir::Files).isEmpty(), qPrintable(layer + " has source files at its root"));
            QVERIFY(dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot).size() >= 4);
            for (const SourceFile &f : sources(layer)) {
                for (const QString &inc : quotedIncludes(f.text))
                    QVERIFY2(inc.contains('/'), qPrintable(f.path + ": #include \"" + inc + "\" does not name its folder"));
            }
        }
    }

    void filesStaySmall()
    {
        for (const QString layer : {"parsers", "viewer", "app"}) {
            for (const SourceFile &f : sources(layer)) {
                const qsizetype lines = f.text.count('\n');
                QVERIFY2(lines <= 500, qPrintable(QString("%1 has %2 lines (at most 500)").arg(f.path).arg(lines)));
            }
        }
    }

    // Functions do one thing: none in parsers/, app/ or viewer/ runs over 100 lines (tests may keep longer
    // table-driven cases).
    void functionsStayShort()
    {
        QStringList found;
        for (const QString layer : {"parsers", "app", "viewer"}) {
            for (const SourceFile &f : sources(layer))
                found << longFunctions(f, 100);
        }
        QVERIFY2(found.isEmpty(), qPrintable("\n" + found.join('\n')));
    }

    // The check above finds a long function, and not a long class or namespace.
    void longFunctionFinderFindsThem()
    {
        QString body;
        for (int i = 0; i < 101; ++i)
            body += "    x += \"}{\"; // {\n";
        const SourceFile sample{"sample.cpp", "namespace a {\nstruct S {\nint f(int x) const\n{\n" + body + "    return x;\n}\n};\n}\n"};
        QCOMPARE(longFunctions(sample, 100).size(), 1);
        QVERIFY(longFunctions(sample, 110).isEmpty());
        const SourceFile shortOnes{"short.cpp", "namespace a {\nvoid g()\n{\n    if (x) {\n" + body + "    }\n}\n}\n"};
        QCOMPARE(longFunctions(shortOnes, 100).size(), 1); // the function, not its if block
    }

    // The README is a front page (at most 300 lines) and the reference lives in docs/; every link
    // between them reaches a file and a heading that exist.
    void docsHoldTogether()
    {
        QFile readme(sourceDir() + "/README.md");
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString front = QString::fromUtf8(readme.readAll());
        QVERIFY2(front.count('\n') <= 300, qPrintable(QString("README.md has %1 lines").arg(front.count('\n'))));
        QStringList broken;
        for (const QString &name : brokenLinks(front, sourceDir()))
            broken << "README.md: " + name;
        QDirIterator it(sourceDir() + "/docs", {"*.md"}, QDir::Files);
        int pages = 0;
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            ++pages;
            for (const QString &name : brokenLinks(QString::fromUtf8(f.readAll()), sourceDir() + "/docs"))
                broken << f.fileName().section('/', -1) + ": " + name;
        }
        QVERIFY(pages >= 10);
        QVERIFY2(broken.isEmpty(), qPrintable("broken links: " + broken.join(", ")));
    }

    // The link check above finds a missing file and a missing heading, and takes a good link.
    void brokenLinkFinderFindsThem()
    {
        const QString sample = "# Two words, one comma\n[a](#two-words-one-comma) [b](#nowhere) [c](README.md) "
                               "[d](missing.md) [e](https://example.org/x.md) [f](docs/guide.md#the-gui)\n";
        QCOMPARE(brokenLinks(sample, sourceDir()), QStringList({"#nowhere", "missing.md"}));
    }

    // A clone of the repository alone builds and tests: build files, tests and scripts name no
    // path beside the checkout (the corpus is tests/corpus, the design notes docs/).
    void nothingReadsOutsideTheCheckout()
    {
        QVERIFY(QFile::exists(sourceDir() + "/tests/corpus/README.md"));
        QVERIFY(QFile::exists(sourceDir() + "/docs/FORMATS.md"));
        static const QRegularExpression outside(QStringLiteral(R"((\.\./)+shared\b|\$\{CMAKE_SOURCE_DIR\}/\.\.|(\.\./){3,})"));
        QStringList files{"CMakeLists.txt", "Makefile", ".ci/run"};
        for (const QString dir : {"tests", "parsers", "viewer", "app", "packaging"}) {
            QDirIterator it(sourceDir() + "/" + dir, {"*.txt", "*.sh", "*.py", "*.cpp", "*.h", "*.cmake"}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = QDir(sourceDir()).relativeFilePath(it.next());
                if (!path.startsWith("tests/corpus/") && !path.endsWith("tst_layout.cpp"))
                    files << path;
            }
        }
        for (const QString &path : files) {
            QFile f(sourceDir() + "/" + path);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
            const auto match = outside.match(QString::fromUtf8(f.readAll()));
            QVERIFY2(!match.hasMatch(), qPrintable(path + " reaches outside the checkout: " + match.captured(0)));
        }
    }

    // Facts that had several copies: each now has one owner.
    void oneOwnerPerFact()
    {
        for (const QString layer : {"viewer", "app"}) {
            for (const SourceFile &f : sources(layer)) {
                // Bytes as text: style/ByteText.h's bytesText(), not a local helper.
                if (!f.path.endsWith("style/ByteText.h"))
                    QVERIFY2(!f.text.contains("QString::fromStdString(formatBytes("), qPrintable(f.path + " formats bytes itself"));
                // Images are written by export/ViewExport, for the GUI and `render` alike.
                if (!f.path.contains("/export/"))
                    QVERIFY2(!f.text.contains("QSvgGenerator"), qPrintable(f.path + " writes SVG itself"));
                // The phase of an event or a time is index/Phases' business.
                QVERIFY2(!f.text.contains("phaseAt("), qPrintable(f.path + " finds phases itself"));
                // The OOM diagnosis is made once, with the summary.
                QVERIFY2(!f.text.contains("diagnoseOom("), qPrintable(f.path + " diagnoses an OOM again"));
            }
        }
        static const QRegularExpression momentText(QStringLiteral(R"re(== "(peak|oom|end)")re"));
        static const QRegularExpression formatText(QStringLiteral(R"re([=!]= "(chrome-trace|pickle|json|none|gzip|zstd)")re"));
        for (const QString layer : {"parsers", "viewer", "app"}) {
            for (const SourceFile &f : sources(layer)) {
                // Moments (--at) are parsed once, in index/Moment.
                if (!f.path.endsWith("index/Moment.cpp"))
                    QVERIFY2(!f.text.contains(momentText), qPrintable(f.path + " compares a moment's text"));
                // File formats and compressions are enums (model/FileKinds); their names are text only.
                QVERIFY2(!f.text.contains(formatText), qPrintable(f.path + " compares a file format's or compression's name"));
                // The OOM is diagnosed once, by the summary (figures/SnapshotSummary).
                if (layer == "parsers" && !f.path.startsWith("parsers/index/AllocatorState.") && !f.path.endsWith("figures/SnapshotSummary.cpp"))
                    QVERIFY2(!f.text.contains("diagnoseOom("), qPrintable(f.path + " diagnoses an OOM again"));
                // Who allocated it is attribution/AllocationSite's rule: nobody takes a stack's first
                // frame (on C++ stacks the caching allocator's) as its site.
                QVERIFY2(!f.text.contains("frameText(frames.front())") && !f.text.contains("frameText(frames[0])"),
                         qPrintable(f.path + " names a site by the first frame"));
                // JSON becomes text in one place, which writes bytes that are not UTF-8 as U+FFFD
                // instead of throwing from nlohmann's strict dump (report/JsonText).
                if (!f.path.endsWith("report/JsonText.cpp"))
                    QVERIFY2(!f.text.contains(".dump("), qPrintable(f.path + " turns JSON into text itself"));
                // One checksum names a snapshot file, for the cache and sessions alike.
                if (!f.path.startsWith("parsers/decode/input/FileChecksum."))
                    QVERIFY2(!f.text.contains("std::string snapshotChecksum("), qPrintable(f.path + " defines a file checksum itself"));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
