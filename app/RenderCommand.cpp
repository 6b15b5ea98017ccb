#include "RenderCommand.h"

#include "Application.h"
#include "CommandLine.h"
#include "analysis/SnapshotSummary.h"
#include "document/Document.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "estimator/EstimatorPanel.h"
#include "export/ViewExport.h"
#include "model/LoadError.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "style/Theme.h"
#include "timeline/TimelineView.h"

#include <filesystem>
#include <optional>
#include "document/ViewState.h"

#include <QApplication>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <iostream>
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

void writeImage(QWidget &view, const QString &out)
{
    QSaveFile file(out); // temp file + rename: an interrupted render never leaves half a file
    if (!file.open(QIODevice::WriteOnly))
        throw std::runtime_error(out.toStdString() + ": cannot write: " + file.errorString().toStdString());
    if (out.endsWith(".svg", Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(view.size());
        svg.setViewBox(QRect(QPoint(0, 0), view.size()));
        svg.setResolution(view.logicalDpiX());
        svg.setTitle("memlens");
        QCPPainter painter(&svg);
        renderVector(&view, painter);
    } else {
        if (!view.grab().save(&file, "PNG"))
            throw std::runtime_error(out.toStdString() + ": cannot encode PNG");
    }
    if (!file.commit())
        throw std::runtime_error(out.toStdString() + ": cannot write: " + file.errorString().toStdString());
}

} // namespace

int runRenderCommand(int argc, char **argv)
{
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        CommandLine cl(args, {"view", "at", "range", "size", "theme", "device", "color", "session", "o"}, {"footer"});
        std::optional<Session> session;
        if (auto path = cl.value("session")) {
            try {
                session = loadSession(*path);
            } catch (const LoadError &e) {
                std::cerr << "memlens: " << e.what() << '\n';
                return 1;
            }
        }
        if (session && cl.positional().empty() && !std::filesystem::exists(session->snapshotPath)) {
            std::cerr << "memlens: " << *cl.value("session") << ": the session's snapshot " << session->snapshotPath
                      << " is missing (give its new path as FILE)\n";
            return 1;
        }
        if ((cl.positional().size() != 1 && !(session && cl.positional().empty())) || !cl.value("o"))
            throw std::invalid_argument("usage: memlens render FILE --view timeline|segments|stacks|flamegraph|live|summary|categories|estimator [--at peak|oom|EVENT] "
                                        "[--range A:B] [--size WxH] [--theme light|dark] [--color allocation|site|category] [--footer] [--session S.memlens] -o OUT.png|OUT.svg");
        const std::string view = cl.value("view").value_or(session ? session->page : "timeline");
        if (view != "timeline" && view != "summary" && view != "segments" && view != "categories" && view != "estimator" &&
            view != "stacks" && view != "flamegraph" && view != "live")
            throw std::invalid_argument("--view " + view + " is not available (timeline, segments, stacks, flamegraph, live, summary, categories, estimator)");
        const QString out = QString::fromStdString(*cl.value("o"));
        if (!out.endsWith(".png", Qt::CaseInsensitive) && !out.endsWith(".svg", Qt::CaseInsensitive))
            throw std::invalid_argument("-o must name a .png or .svg file");
        const QSize size = parseSize(cl.value("size").value_or("1600x900"));

        auto app = createApplication(argc, argv, true);
        if (!applyTheme(*app, QString::fromStdString(cl.value("theme").value_or("light"))))
            throw std::invalid_argument("--theme takes light or dark");
        const QString file = QString::fromStdString(cl.positional().empty() ? session->snapshotPath : cl.positional().front());
        std::shared_ptr<Document> doc;
        try {
            doc = buildDocument(file, nullptr, {});
        } catch (const LoadError &e) {
            std::cerr << "memlens: " << e.what() << '\n';
            return 1;
        }
        if (view == "estimator") {
            // The estimator with this file's measured peak beside the prediction.
            EstimatorPanel panel;
            if (!doc->devices.empty()) {
                const DeviceSummary &s = doc->devices.begin()->second.summary;
                panel.setMeasuredPeak(s.peakActiveBytes, doc->fileName());
                panel.setMeasuredCategories(s.categoryBytesAtPeak);
                panel.prefillFromSnapshot();
            }
            panel.setFixedSize(size);
            panel.show();
            QApplication::processEvents();
            writeImage(panel, out);
            return 0;
        }
        DocumentView documentView;
        documentView.setDocument(doc);
        if (auto device = cl.integer("device")) {
            if (!doc->device(static_cast<int>(*device)))
                throw std::invalid_argument(file.toStdString() + ": device " + std::to_string(*device) + " has no segments or trace entries");
            documentView.state()->setDevice(static_cast<int>(*device));
        }
        if (session)
            applySession(documentView, *session);
        documentView.showPage(view == "summary"      ? DocumentView::Page::Summary
                              : view == "segments"   ? DocumentView::Page::Segments
                              : view == "categories" ? DocumentView::Page::Categories
                              : (view == "stacks" || view == "flamegraph") ? DocumentView::Page::Stacks
                              : view == "live"       ? DocumentView::Page::Live
                                                     : DocumentView::Page::Timeline);
        // A picture of the view itself: no empty details panel, and exactly the size asked for.
        documentView.setDetailsVisible(false);
        documentView.setFixedSize(size);
        documentView.show();
        QApplication::processEvents();
        const DeviceData *device = doc->device(documentView.state()->device());
        if (device && (view == "segments" || view == "stacks" || view == "flamegraph" || view == "live")) {
            if (auto at = cl.value("at"))
                documentView.state()->setSelectedEvent(resolveEvent(*device->index, *at));
        }
        if (auto color = cl.value("color")) {
            const int mode = *color == "allocation" ? 0 : *color == "site" ? 1 : *color == "category" ? 2 : -1;
            if (mode < 0)
                throw std::invalid_argument("--color takes allocation, site or category");
            documentView.state()->setColorMode(static_cast<ColorMode>(mode));
        }
        if (device && view == "timeline") {
            TimelineView *timeline = documentView.timeline();
            if (auto range = cl.value("range")) {
                const auto colon = range->find(':');
                if (colon == std::string::npos)
                    throw std::invalid_argument("--range takes FIRST:LAST event numbers");
                const double a = std::atof(range->substr(0, colon).c_str()), b = std::atof(range->substr(colon + 1).c_str());
                if (!(b > a))
                    throw std::invalid_argument("--range: LAST must be greater than FIRST");
                timeline->plot()->xAxis->setRange(timeline->axis().xOfEvent(static_cast<uint32_t>(a)),
                                                  timeline->axis().xOfEvent(static_cast<uint32_t>(std::min<double>(b, device->index->eventCount() - 1))));
            }
            if (auto at = cl.value("at")) {
                const uint32_t event = resolveEvent(*device->index, *at);
                if (cl.value("range"))
                    documentView.state()->setSelectedEvent(event);
                else
                    timeline->revealEvent(event);
            }
            timeline->plot()->replot();
        }
        QApplication::processEvents();
        if (view == "segments")
            documentView.segments()->revealAnnotations();
        if (view == "flamegraph") {
            // The flame graph alone, at the requested size.
            FlameGraphWidget *flame = documentView.stacks()->flameGraph();
            flame->setParent(nullptr);
            flame->setFixedSize(size);
            flame->show();
            QApplication::processEvents();
            writeImage(*flame, out);
            flame->setParent(documentView.stacks());
            return 0;
        }
        if (cl.flag("footer")) {
            // As the GUI exports: the page plus a footer naming file, device, moment and version.
            QWidget *page = documentView.currentPage();
            const ExportFooter footer = documentView.exportFooter(QString::fromUtf8(MEMLENS_VERSION));
            const QString error = out.endsWith(".svg", Qt::CaseInsensitive) ? exportSvg(page, footer, out)
                                                                            : savePng(exportImage(page, footer, 1.0), out);
            if (!error.isEmpty())
                throw std::runtime_error(error.toStdString());
            return 0;
        }
        writeImage(documentView, out);
        return 0;
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens render: " << e.what() << '\n';
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "memlens render: " << e.what() << '\n';
        return 1;
    }
}

} // namespace memlens
