#pragma once
// Locating the shared corpus and reading its reference files.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>
#include <QXmlStreamReader>

inline QString corpusDir()
{
    return QString::fromUtf8(MEMLENS_CORPUS_DIR);
}

// Every snapshot file in corpus/snapshots (pickles, compressed or not).
inline QStringList corpusSnapshots()
{
    QStringList files;
    QDir root(corpusDir() + "/snapshots");
    for (const QString &folder : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QDir dir(root.filePath(folder));
        for (const QString &name : dir.entryList({"*.pickle", "*.pickle.gz", "*.pickle.zst"}, QDir::Files, QDir::Name))
            files << dir.filePath(name);
    }
    return files;
}

inline QJsonObject readJsonObject(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Runs a Python helper from tests/tools; empty result when it fails (the caller QFAILs).
inline QByteArray runPythonTool(const QString &tool, const QStringList &args, QString *error = nullptr)
{
    QProcess p;
    p.start(QString::fromUtf8(MEMLENS_PYTHON),
            QStringList{QString::fromUtf8(MEMLENS_SOURCE_DIR) + "/tests/tools/" + tool} + args);
    if (!p.waitForFinished(300000) || p.exitCode() != 0) {
        if (error)
            *error = QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return p.readAllStandardOutput();
}

// The corpus GPT-2 snapshot as torch writes it when its ring buffer overflowed (the newest 60 %
// of entries kept), written into `dir`; empty with `error` set when the tool fails.
inline QString cutGpt2Trace(const QString &dir, QString *error)
{
    const QString cut = dir + "/cut.pickle";
    runPythonTool("cut_trace.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", cut, "0.6"}, error);
    return QFile::exists(cut) ? cut : QString();
}

// All <text> of an SVG file (and how many elements); *ok is false when the file is missing or
// not well-formed XML.
inline QString svgText(const QString &path, bool *ok, int *elements = nullptr)
{
    if (elements)
        *elements = 0;
    QFile f(path);
    *ok = f.open(QIODevice::ReadOnly);
    QString text;
    QXmlStreamReader xml(&f);
    while (*ok && !xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
        {
            text += xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (elements)
                ++*elements;
        }
    }
    *ok = *ok && !xml.hasError();
    return text;
}
