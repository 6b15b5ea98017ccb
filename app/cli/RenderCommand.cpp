#include "cli/RenderCommand.h"

#include "cli/OutputName.h"
#include "cli/RenderRankOverview.h"
#include "questions/QuestionError.h"
#include "questions/ReplayQuestion.h"

#include "gui/Application.h"
#include "pipeline/RankStitch.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/QuestionAdmission.h"
#include "figures/SnapshotSummary.h"
#include "compare/RunOverlayView.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "state/Page.h"
#include "state/ViewState.h"
#include "estimator/EstimatorPanel.h"
#include "export/ViewExport.h"
#include "jobs/DeviceAdvice.h"
#include "jobs/StitchedRunStages.h"
#include "model/LoadError.h"
#include "pipeline/DocumentPipeline.h"
#include "segments/SegmentTimelineView.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "style/Theme.h"
#include "timeline/TimelineView.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <QApplication>
#include <qcustomplot.h>

namespace memlens {

namespace {

QSize parseSize(const std::string &text)
{
    const auto x = text.find('x');
    if (x == std::string::npos)
        throw std::invalid_argument("--size takes WIDTHxHEIGHT, e.g. 1600x900");
    const int w = std::atoi(text.substr(0, x).c_str()), h = std::atoi(text.substr(x + 1).c_str());
    if (w < 200 || h < 150 || w > 10000 || h > 10000)
        throw std::invalid_argument("--size must be between 200x150 and 10000x10000");
    return {w, h};
}

// The views `render` draws: every page by its name (one table, kPageNames), plus the flame
// graph alone and the estimator panel.
std::vector<std::string_view> renderViews()
{
    std::vector<std::string_view> views;
    for (Page page : kPages)
        views.push_back(pageName(page));
    views.push_back("flamegraph");
    views.push_back("estimator");
    return views;
}

std::string viewList()
{
    return renderViewNames("|");
}

// Atomically, as the GUI's exports write (with the footer when one is given).
void writeImage(QWidget &view, const QString &out, const std::optional<ExportFooter> &footer = std::nullopt)
{
    const QString error = out.endsWith(".svg", Qt::CaseInsensitive) ? exportSvg(&view, footer, out)
                                                                    : savePng(exportImage(&view, footer, 1.0), out);
    if (!error.isEmpty())
        throw std::runtime_error(error.toStdString());
}

// `render A --compare B`: both runs on one axis (the Compare dialog's upper half).
int renderComparison(std::shared_ptr<const Document> a, int device, const std::string &otherPath, const std::string &align,
                     QSize size, const QString &out, bool noCache)
{
    const std::map<std::string, OverlayAlignment> alignments = {
        {"time", OverlayAlignment::Time}, {"event", OverlayAlignment::Event}, {"step", OverlayAlignment::Step}};
    if (!alignments.count(align))
        throw std::invalid_argument("--align takes time, event or step");
    LoadedDocument b;
    try {
        const SnapshotCache cache;
        b = loadDocument(otherPath, StopAfter::Document, noCache ? nullptr : &cache);
    } catch (const LoadError &e) {
        std::cerr << "memlens: " << e.what() << '\n';
        return 1;
    }
    const int deviceB = b.document->deviceMatching(device);
    RunOverlayView view;
    view.setAlignment(alignments.at(align));
    view.setRuns(a, device, b.document, deviceB);
    view.setFixedSize(size);
    view.show();
    QApplication::processEvents();
    view.plot()->replot();
    writeImage(view, out);
    return 0;
}

std::optional<Session> sessionOption(const CommandLine &cl)
{
    const auto path = cl.value("session");
    if (!path)
        return std::nullopt;
    Session session;
    try {
        session = loadSession(*path);
    } catch (const LoadError &e) {
        throw UnreadableFile{e.what()};
    }
    if (cl.positional().empty() && !std::filesystem::exists(session.snapshotPath))
        throw UnreadableFile{*path + ": the session's snapshot " + session.snapshotPath + " is missing (give its new path as FILE)"};
    return session;
}

LoadedDocument loadForRender(const std::string &file, const CommandLine &cl)
{
    try {
        const SnapshotCache cache;
        const SnapshotCache *useCache = cl.flag("no-cache") ? nullptr : &cache;
        // A folder and a rank: that rank's dumps stitched into one run.
        if (const auto rank = cl.integer("rank"))
            return loadStitchedRun(file, static_cast<int>(*rank), useCache);
        return loadDocument(file, StopAfter::Timeline, useCache, adviseDevice);
    } catch (const LoadError &e) {
        throw UnreadableFile{e.what()};
    }
}

// The estimator with the chosen device's measured peak beside the prediction (and --fix applied).
void renderEstimator(const Document &doc, std::optional<int> deviceOption, const CommandLine &cl, QSize size, const QString &out)
{
    EstimatorPanel panel;
    if (const DeviceData *measured = doc.device(deviceOption.value_or(doc.openingDevice()))) {
        panel.setMeasurement(*measured, QString::fromStdString(doc.fileName()));
        panel.setInferred(measured->advice.setup);
        if (auto name = cl.value("fix")) {
            const auto &fixes = measured->advice.fixes;
            const auto fix = std::find_if(fixes.begin(), fixes.end(), [&](const Fix &f) { return f.technique == *name; });
            if (fix == fixes.end())
                throw std::invalid_argument("--fix " + *name + ": not among this snapshot's fixes (see memlens advise)");
            panel.showFix(*fix);
        }
    }
    panel.setFixedSize(size);
    panel.show();
    QApplication::processEvents();
    writeImage(panel, out);
}

// --what-if: the replay under another allocator setting, drawn by the timeline, the Segments page
// and segments over time.
void applyWhatIf(ViewState &state, const DeviceData *device, const std::string &view, const std::string &conf)
{
    if (!device || (view != "timeline" && view != "segments" && view != "segment-timeline"))
        throw std::invalid_argument("--what-if draws on --view timeline, segments or segment-timeline");
    // The question `memlens replay` asks, with its refusals (a fraction of a device without its size).
    ReplayRequest request;
    request.device = device->index->device();
    request.allocConf = conf;
    try {
        const std::optional<AllocatorConfig> admitted = admitReplayRequest(request);
        const Document &document = *state.document();
        state.setWhatIf(std::make_shared<const ReplayResult>(answerReplay(document.path, *document.snapshot, *device->index, request, admitted).result));
    } catch (const QuestionError &e) {
        throw std::invalid_argument("--what-if: " + std::string(e.what()));
    }
}

// The timeline's --range, --at and --search.
void applyTimelineOptions(DocumentView &documentView, const DeviceData &device, const CommandLine &cl)
{
    ViewState &state = *documentView.state();
    if (auto range = cl.value("range")) {
        const auto colon = range->find(':');
        if (colon == std::string::npos)
            throw std::invalid_argument("--range takes FIRST:LAST event numbers");
        const double a = std::atof(range->substr(0, colon).c_str()), b = std::atof(range->substr(colon + 1).c_str());
        if (!(b > a))
            throw std::invalid_argument("--range: LAST must be greater than FIRST");
        state.setVisibleRange({state.axis().xOfEvent(EventId(static_cast<uint32_t>(a))),
                               state.axis().xOfEvent(EventId(static_cast<uint32_t>(std::min<double>(b, device.index->eventCount() - 1))))});
    }
    if (auto at = cl.moment("at")) {
        const EventId event = admitMoment(*device.index, *at).lastEntry(); // none at the start: nothing to show
        if (cl.value("range"))
            state.setSelectedEvent(event.isNone() ? std::nullopt : std::optional(event));
        else
            documentView.timeline()->revealEvent(event);
    }
    if (auto search = cl.value("search"))
        documentView.timeline()->setSearchText(QString::fromStdString(*search));
    documentView.timeline()->plot()->replot();
}

// Everything the command line sets on the view: the moment, colours, the what-if, the timeline's options.
void applyViewOptions(DocumentView &documentView, const std::string &view, const CommandLine &cl)
{
    ViewState &state = *documentView.state();
    const DeviceData *device = state.deviceData();
    if (device && (view == "segments" || view == "stacks" || view == "flamegraph" || view == "live")) {
        if (auto at = cl.moment("at")) {
            // The cursor names entries; the start (a peak no entry exceeds) leaves it unset.
            if (const TracePoint point = admitMoment(*device->index, *at); !point.isStart())
                state.setSelectedEvent(point.lastEntry());
        }
    }
    if (auto color = cl.value("color")) {
        const auto mode = colorModeFromName(*color);
        if (!mode)
            throw std::invalid_argument("--color takes allocation, site or category");
        state.setColorMode(*mode);
    }
    if (auto conf = cl.value("what-if"))
        applyWhatIf(state, device, view, *conf);
    if (device && view == "timeline")
        applyTimelineOptions(documentView, *device, cl);
    if (auto by = cl.value("stack-by")) {
        if (view != "segment-timeline")
            throw std::invalid_argument("--stack-by orders the bands of --view segment-timeline");
        documentView.segmentTimeline()->setOrder(*by == "size" ? SegmentOrder::Size : *by == "allocation" ? SegmentOrder::Allocation : SegmentOrder::Address);
    }
    QApplication::processEvents();
    if (view == "segments")
        documentView.segments()->revealNotes();
}

// The page as asked: the flame graph alone, the page with a footer, or the whole view.
void writeView(DocumentView &documentView, const std::string &view, bool footer, QSize size, const QString &out)
{
    if (view == "flamegraph") {
        FlameGraphWidget *flame = documentView.stacks()->flameGraph();
        flame->setParent(nullptr);
        flame->setFixedSize(size);
        flame->show();
        QApplication::processEvents();
        writeImage(*flame, out);
        flame->setParent(documentView.stacks());
    } else if (footer) {
        // As the GUI exports: the page plus a footer naming file, device, moment and version.
        writeImage(*documentView.currentPage(), out, documentView.exportFooter(QString::fromUtf8(MEMLENS_VERSION)));
    } else {
        writeImage(documentView, out);
    }
}

int render(int argc, char **argv, const CommandLine &cl, const QString &out)
{
    const std::optional<Session> session = sessionOption(cl);
    if ((cl.positional().size() != 1 && !(session && cl.positional().empty())) || !cl.value("o"))
        throw std::invalid_argument(usageLine(commandSpec("render")) + " (VIEW: " + viewList() + ")");
    const std::string view = cl.value("view").value_or(session ? session->page : "timeline");
    if (const auto views = renderViews(); std::find(views.begin(), views.end(), view) == views.end())
        throw std::invalid_argument("--view " + view + " is not available (" + viewList() + ")");
    if (!out.endsWith(".png", Qt::CaseInsensitive) && !out.endsWith(".svg", Qt::CaseInsensitive))
        throw std::invalid_argument("-o must name a .png or .svg file");
    const QSize size = parseSize(cl.value("size").value_or("1600x900"));

    auto app = createApplication(argc, argv, true);
    if (!applyTheme(*app, QString::fromStdString(cl.value("theme").value_or("light"))))
        throw std::invalid_argument("--theme takes light or dark");
    const std::string file = cl.positional().empty() ? session->snapshotPath : cl.positional().front();
    if (std::error_code ec; !cl.integer("rank") && std::filesystem::is_directory(file, ec)) {
        renderRankOverview(file, cl.value("view"), size, out, cl.flag("no-cache"));
        return 0;
    }
    const LoadedDocument loaded = loadForRender(file, cl);
    const Document &doc = *loaded.document;
    std::optional<int> deviceOption;
    if (auto device = cl.integer("device")) {
        if (!doc.device(static_cast<int>(*device)))
            throw std::invalid_argument(file + ": device " + std::to_string(*device) + " has no segments or trace entries");
        deviceOption = static_cast<int>(*device);
    }
    if (view == "estimator") {
        renderEstimator(doc, deviceOption, cl, size, out);
        return 0;
    }
    if (auto other = cl.value("compare"))
        return renderComparison(loaded.document, deviceOption.value_or(doc.openingDevice()), *other, cl.value("align").value_or("step"), size, out,
                                cl.flag("no-cache"));
    DocumentView documentView;
    documentView.setDocument(loaded);
    if (deviceOption)
        documentView.state()->setDevice(*deviceOption);
    if (session)
        applySession(documentView, *session);
    const Page page = view == "flamegraph" ? Page::Stacks : pageFromName(view).value_or(Page::Timeline);
    // A page this file does not have: the window hides its tab; an image of another page, or of
    // an empty chart under a message, would answer a question nobody asked.
    if (!documentView.hasPage(page))
        throw UnreadableFile{file + ": no " + view + " page for this file (" +
                             (page == Page::Modules  ? "no FSDP or module-path unit marks"
                              : page == Page::Layers ? "no layer loop in its stacks"
                              : page == Page::Steps  ? "fewer than two whole steps"
                                                     : "not recorded in it") +
                             ")"};
    documentView.showPage(page);
    // A picture of the view itself: no empty details panel, and exactly the size asked for.
    documentView.setDetailsVisible(false);
    documentView.setFixedSize(size);
    documentView.show();
    QApplication::processEvents();
    applyViewOptions(documentView, view, cl);
    writeView(documentView, view, cl.flag("footer"), size, out);
    return 0;
}

} // namespace

std::string renderViewNames(const std::string &separator)
{
    std::string list;
    for (std::string_view v : renderViews())
        list += (list.empty() ? "" : separator) + std::string(v);
    return list;
}

int runRenderCommand(int argc, char **argv)
{
    try {
        const CommandLine cl(std::vector<std::string>(argv + 2, argv + argc), commandSpec("render"));
        std::optional<OutputName> out;
        if (const std::optional<std::string> o = cl.value("o"))
            out.emplace(*o);
        const int code = render(argc, argv, cl, out ? out->path() : QString());
        if (out)
            out->commit();
        return code;
    } catch (const UnreadableFile &e) {
        std::cerr << "memlens: " << e.message << '\n';
        return 1;
    } catch (const QuestionError &e) {
        return reportQuestionError("render", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens render: " << e.what() << '\n';
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "memlens render: " << e.what() << '\n';
        return 1;
    }
}

} // namespace memlens
