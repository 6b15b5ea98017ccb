#include "summary/SummaryFigures.h"

#include "style/AllocationText.h"
#include "style/ByteText.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>

namespace memlens {

// The figures' table, a row at a time.
struct SummaryFigures::Rows {
    QString html;
    void operator()(const QString &k, const QString &v) { html += "<tr><td><b>" + k + "</b></td><td>" + v + "</td></tr>"; }
};

QString SummaryFigures::factsLine(const Document &document, const DeviceSummary &s)
{
    const FileFacts &f = document.snapshot->facts;
    QStringList features;
    if (f.hasTimes)
        features << tr("times");
    if (f.hasFrames)
        features << tr("stacks");
    if (f.hasPhases)
        features << tr("record_function phases");
    if (f.hasCompileContext)
        features << tr("compile context");
    if (f.hasAllocatorSettings)
        features << tr("allocator settings");
    QString format = QString::fromLatin1(kFileFormatNames.name(f.format));
    if (f.pickleProtocol)
        format += tr(" protocol %1").arg(f.pickleProtocol);
    if (f.compression != Compression::None)
        format += ", " + QString::fromLatin1(kCompressionNames.name(f.compression));
    const std::string name = document.snapshot->deviceName(s.device);
    return tr("%1 — %2; %3: %4 trace entries; recorded: %5")
        .arg(QString::fromStdString(document.fileName()), format)
        .arg(name == "host" ? tr("pinned host memory (host)") : QString::fromStdString(name))
        .arg(QString::fromStdString(groupDigits(s.entries)))
        .arg(features.isEmpty() ? tr("nothing beyond the final state") : features.join(", "));
}

QString SummaryFigures::html(const Document &document, const DeviceData &data)
{
    Rows row;
    row.html = "<table cellspacing='6'>";
    peakAndHealth(row, document, data);
    oomsAndCategories(row, data);
    stepsAndLeaks(row, document, data);
    endState(row, document, data);
    return row.html + "</table>";
}

void SummaryFigures::peakAndHealth(Rows &row, const Document &document, const DeviceData &data)
{
    const DeviceSummary &s = data.summary;
    const QString phase = QString::fromStdString(s.peakPhase);
    QString peak = s.peakIndex ? QStringLiteral("<a href='event:%3'>%1</a> at %2")
                                     .arg(bytesText(s.peakActiveBytes), eventLabel(*data.index, *s.peakIndex).toHtmlEscaped())
                                     .arg(s.peakIndex->index())
                               : tr("%1 before the trace began").arg(bytesText(s.peakActiveBytes));
    if (!phase.isEmpty())
        peak += tr(", during <i>%1</i>").arg(phase.toHtmlEscaped());
    peak += tr(", %1 live blocks").arg(s.liveBlocksAtPeak);
    row(tr("Peak active"), peak);
    row(tr("Peak reserved"), bytesText(s.peakReservedBytes));
    if (std::any_of(s.poolsAtEnd.begin(), s.poolsAtEnd.end(), [](const PoolShare &p) { return p.isPrivate(); })) {
        QStringList pools;
        for (const PoolShare &p : s.poolsAtEnd) {
            const QString id = p.isPrivate() ? QStringLiteral("(%1, %2)").arg(p.pool.first).arg(p.pool.second) : tr("default");
            // The segment count as the command line's text gives it (the window had none).
            pools << tr("<b>%1</b>: %2 reserved in %3, %4 allocated%5")
                         .arg(id, bytesText(p.reserved), p.segments == 1 ? tr("1 segment") : tr("%1 segments").arg(p.segments), bytesText(p.allocated),
                              p.isPrivate() ? " — " + QString::fromStdString(p.madeBy).toHtmlEscaped() : QString());
        }
        row(tr("Memory pools"), pools.join(QStringLiteral("<br/>")));
    }
    QStringList oomDevices;
    for (const auto &[number, device] : document.devices) {
        if (!device.summary.ooms.empty())
            oomDevices << QString::fromStdString(document.snapshot->deviceName(number));
    }
    // A stitched run's warnings say what is not in it (another run's dump, iterations not numbered).
    if (!document.notes.empty()) {
        QStringList notes;
        for (const std::string &n : document.notes)
            notes << "<span style='color:#d08000'>⚠</span> " + QString::fromStdString(n).toHtmlEscaped();
        row(tr("Stitched"), notes.join(QStringLiteral("<br/>")));
    }
    if (document.devices.size() > 1 && !oomDevices.isEmpty())
        row(tr("Ran out of memory on"), tr("%1 (of %2 devices)").arg(oomDevices.join(", ")).arg(document.devices.size()));
    // English plurals written out: without a translation loaded, tr's %n forms read "1 blocks".
    auto counted = [](uint64_t n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    row(tr("Before the trace"), tr("%1 in %2, %3 reserved")
                                    .arg(bytesText(s.initialBytes), counted(s.initialBlocks, tr("1 block"), tr("%1 blocks")), bytesText(s.startReservedBytes)));
    if (s.coverage.truncated)
        row(tr("Truncated trace"), tr("the trace does not reach back to the start of recording; it covers from %1. "
                                      "%2 (%3) %4 older than its first entry — <a href='health'>why…</a>")
                                       .arg(s.coverage.coversFromUs ? QDateTime::fromMSecsSinceEpoch(*s.coverage.coversFromUs / 1000, QTimeZone::utc())
                                                                          .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz 'UTC'"))
                                                                    : tr("its first entry"))
                                       .arg(counted(s.coverage.ghostBlocks, tr("1 ghost block"), tr("%1 ghost blocks")))
                                       .arg(bytesText(s.coverage.ghostBytes), s.coverage.ghostBlocks == 1 ? tr("is") : tr("are")));
    // How the file was recorded is no inconsistency: a file without stacks says so on its own row.
    std::vector<FileWarning> inconsistent;
    for (const FileWarning &w : s.warnings) {
        if (w.kind == kNoStacksWarning)
            row(tr("Stacks"), QString::fromStdString(w.message).toHtmlEscaped());
        else
            inconsistent.push_back(w);
    }
    if (!inconsistent.empty()) {
        uint64_t count = 0;
        for (const FileWarning &w : inconsistent)
            count += w.count;
        row(tr("File health"), tr("<span style='color:#d08000'>⚠</span> <a href='health'>%1</a> in this file: ")
                                       .arg(count == 1 ? tr("1 inconsistency") : tr("%1 inconsistencies").arg(count)) +
                                   QString::fromStdString(inconsistent.front().message).toHtmlEscaped() +
                                   (inconsistent.size() > 1 ? tr(" and %n more kinds", nullptr, static_cast<int>(inconsistent.size() - 1)) : QString()));
    }
}

void SummaryFigures::oomsAndCategories(Rows &row, const DeviceData &data)
{
    const DeviceSummary &s = data.summary;
    for (const OomDiagnosis &o : s.ooms)
        row(tr("Out of memory"), tr("<a href='oom:%1'>%2 requested</a> at %3; the device reported %4 free%8; %5 free inside "
                                    "reserved segments, largest free block %6 — <a href='segments:%1'><b>%7</b></a>")
                                      .arg(o.event.index())
                                      .arg(bytesText(o.requested), eventLabel(*data.index, o.event).toHtmlEscaped(), bytesText(o.deviceFree), bytesText(o.reservedFree),
                                           bytesText(o.largestFreeBlock), o.fragmentation ? tr("fragmentation") : tr("capacity"),
                                           o.perProcessLimit() ? tr(", so %1").arg(QString::fromLatin1(kProcessLimitFinding)) : QString()));
    QStringList byCategory;
    for (int c = 0; c < kCategoryCount; ++c) {
        if (const uint64_t bytes = s.categoryBytesAtPeak[static_cast<size_t>(c)]) {
            const std::string_view name = categoryLabel(static_cast<Category>(c));
            byCategory << QStringLiteral("%1 %2").arg(QString::fromLatin1(name.data(), qsizetype(name.size())), bytesText(bytes));
        }
    }
    if (std::any_of(s.warnings.begin(), s.warnings.end(), [](const FileWarning &w) { return w.kind == kNoStacksWarning; }))
        row(tr("At the peak"), tr("categories %1").arg(QString::fromLatin1(kNotRecordedNoStacks.data(), qsizetype(kNotRecordedNoStacks.size()))));
    else if (!byCategory.isEmpty()) {
        QStringList older;
        for (int c = 0; c < kCategoryCount; ++c) {
            if (const uint64_t bytes = s.categoryBytesFromBeforeTrace[static_cast<size_t>(c)]; bytes && Category(c) != Category::Unknown) {
                const std::string_view name = categoryLabel(static_cast<Category>(c));
                older << QStringLiteral("%1 %2").arg(QString::fromLatin1(name.data(), qsizetype(name.size())), bytesText(bytes));
            }
        }
        row(tr("At the peak"), byCategory.join(QStringLiteral(" · ")) +
                                   (older.isEmpty() ? QString() : tr(" — from before the trace, named by their blocks' frames: %1").arg(older.join(QStringLiteral(", ")))));
    }
    if (s.units) {
        // The units holding most, largest first: where a sharded run's memory sits.
        const std::vector<UnitBytes> units = unitsByBytes(s.unitsAtPeak);
        QStringList largest;
        for (size_t i = 0; i < std::min<size_t>(units.size(), 4); ++i)
            largest << QStringLiteral("%1 %2").arg(QString::fromStdString(units[i].unit).toHtmlEscaped(), bytesText(units[i].bytes));
        row(tr("By unit"), tr("%1 — <a href='units'>all %2 units</a>").arg(largest.join(QStringLiteral(" · "))).arg(units.size()));
    }
    if (s.layers) {
        uint64_t kept = 0, brief = 0;
        for (const LayerPassFigures &f : s.layers->forward)
            kept = std::max(kept, f.retainedBytes), brief = std::max(brief, f.transientBytes);
        row(tr("Layers"), tr("%1, each keeping up to %2 for backward and needing up to %3 more for a moment — <a href='layers'>by layer</a>")
                              .arg(s.layers->forward.size())
                              .arg(bytesText(kept), bytesText(brief)));
    }
}

void SummaryFigures::stepsAndLeaks(Rows &row, const Document &document, const DeviceData &data)
{
    const DeviceSummary &s = data.summary;
    if (!s.steps.empty()) {
        const StepSummary &highest = highestStep(s.steps);
        const size_t partial = s.steps.size() - wholeStepCount(s.steps);
        // A stitched run's gaps: the iterations its dumps did not record (the row said nothing of them).
        const std::vector<IterationGap> gaps = iterationGaps(s.steps);
        QStringList missing;
        for (size_t g = 0; g < gaps.size() && g < 3; ++g)
            missing << QString::fromStdString(iterationGapText(gaps[g]));
        if (gaps.size() > 3)
            missing << tr("…");
        const QString cut = (partial ? tr(" (%1 cut by the window or a gap, partial)").arg(partial) : QString()) +
                            (gaps.empty()       ? QString()
                             : gaps.size() == 1 ? tr("; a gap where no dump recorded %1").arg(missing.join(", "))
                                                : tr("; %1 gaps where no dump recorded %2").arg(gaps.size()).arg(missing.join(", ")));
        row(tr("Steps"), tr("<a href='steps'>%1 steps</a>%6; the highest peak, %2, in %3; allocated at the end of a step %4 → %5 "
                            "(from %7)")
                             .arg(s.steps.size())
                             .arg(bytesText(highest.peakActiveBytes))
                             .arg(QString::fromStdString(stepName(highest)))
                             .arg(bytesText(s.steps.front().endAllocatedBytes), bytesText(s.steps.back().endAllocatedBytes), cut,
                                  QString::fromStdString(std::string(stepSourceText(s.stepsFrom))).toHtmlEscaped()));
    }
    if (!s.leakSuspects.empty()) {
        QStringList suspects;
        for (size_t i = 0; i < s.leakSuspects.size() && i < 3; ++i) {
            const LeakSuspect &l = s.leakSuspects[i];
            const QString site = siteLabel(*document.snapshot, l.stack);
            suspects << tr("%1 from <code>%2</code>, grew in %3 of %4 steps").arg(bytesText(l.bytes), site.toHtmlEscaped()).arg(l.steps).arg(s.steps.size());
        }
        if (s.leakSuspects.size() > 3)
            suspects << tr("%n more", nullptr, static_cast<int>(s.leakSuspects.size() - 3));
        row(tr("Leak suspects"), suspects.join(QStringLiteral("<br/>")) + tr(" — <a href='leaks'>show what piled up</a>"));
    }
    if (!s.whyNoLeakSuspects.empty())
        row(tr("Leak suspects"), tr("none: %1").arg(QString::fromStdString(s.whyNoLeakSuspects).toHtmlEscaped()));
}

void SummaryFigures::endState(Rows &row, const Document &document, const DeviceData &data)
{
    const DeviceSummary &s = data.summary;
    if (s.traceTotals) {
        row(tr("Allocator totals"), tr("Total Allocated peaked at %1 (event %2); at the end %3 allocated, %4 reserved. "
                                       "A profiler trace records no segments or blocks.")
                                        .arg(bytesText(s.traceTotals->peakAllocated))
                                        .arg(s.traceTotals->peakIndex.index())
                                        .arg(bytesText(s.traceTotals->finalAllocated), bytesText(s.traceTotals->finalReserved)));
    } else {
        row(tr("At the end"), tr("%1 reserved in %2 segments; %3 allocated; %4 free in reserved, largest free block %5 "
                                 "(external fragmentation %6 %)")
                                  .arg(bytesText(s.final.reserved))
                                  .arg(s.final.segments)
                                  .arg(bytesText(s.final.allocated), bytesText(s.final.inactive), bytesText(s.final.largestInactive))
                                  .arg(qRound(s.final.externalFragmentation * 100)));
    }
    const auto &settings = document.snapshot->allocatorSettings;
    if (!settings.empty()) {
        QString conf;
        for (const auto &[k, v] : settings) {
            if (k == "PYTORCH_CUDA_ALLOC_CONF")
                conf = QString::fromStdString(v);
        }
        row(tr("Allocator"), tr("PYTORCH_CUDA_ALLOC_CONF=%1 · <a href='settings'>all %2 settings…</a>")
                                 .arg(conf.isEmpty() ? tr("(unset)") : conf.toHtmlEscaped())
                                 .arg(settings.size()));
    }
}

} // namespace memlens
