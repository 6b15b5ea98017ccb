#include "export/ViewExport.h"

#include "index/FrameFilter.h"
#include "style/ByteText.h"

#include <qcustomplot.h>
#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPointer>
#include <QBuffer>
#include <QFileInfo>
#include <QStorageInfo>
#include <QSaveFile>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QWidget>

namespace memlens {

namespace {
void drawFooter(QPainter &p, const QRect &strip, const ExportFooter &footer, const QPalette &palette)
{
    p.fillRect(strip, palette.color(QPalette::Window));
    p.setPen(palette.color(QPalette::PlaceholderText));
    p.drawLine(strip.topLeft(), strip.topRight());
    p.setPen(palette.color(QPalette::WindowText));
    p.drawText(strip.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, footer.text());
}

// An export shows the picture, its legend and the footer, not the controls around them (a
// search box with its placeholder, drop-downs, check boxes). They are hidden while the view
// paints, keeping their room, so nothing else moves and their parents' own background shows.
// A widget whose controls are what it shows (the estimator's setup form) says so with the
// property kExportKeepsControls, and they stay.
bool keepsControls(QWidget *w, QWidget *view)
{
    for (; w; w = w->parentWidget()) {
        if (w->property(kExportKeepsControls).toBool())
            return true;
        if (w == view)
            break;
    }
    return false;
}

class ControlsHidden {
public:
    explicit ControlsHidden(QWidget *view)
    {
        for (QWidget *w : view->findChildren<QWidget *>()) {
            const bool control = qobject_cast<QComboBox *>(w) || qobject_cast<QLineEdit *>(w) || qobject_cast<QAbstractButton *>(w) ||
                                 qobject_cast<QAbstractSpinBox *>(w) || qobject_cast<QAbstractSlider *>(w);
            if (!control || qobject_cast<QScrollBar *>(w) || w->isHidden() || !w->isVisibleTo(view) || keepsControls(w, view))
                continue;
            QSizePolicy policy = w->sizePolicy();
            hidden_.push_back({w, policy.retainSizeWhenHidden()});
            policy.setRetainSizeWhenHidden(true);
            w->setSizePolicy(policy);
            w->hide();
        }
        // A control's caption goes with it ("Device:" above an export is a question left open).
        for (QLabel *label : view->findChildren<QLabel *>()) {
            if (label->buddy() && label->buddy()->isHidden() && label->isVisibleTo(view)) {
                QSizePolicy policy = label->sizePolicy();
                hidden_.push_back({label, policy.retainSizeWhenHidden()});
                policy.setRetainSizeWhenHidden(true);
                label->setSizePolicy(policy);
                label->hide();
            }
        }
    }
    ~ControlsHidden()
    {
        for (const auto &[w, retained] : hidden_) {
            if (!w)
                continue;
            w->show();
            QSizePolicy policy = w->sizePolicy();
            policy.setRetainSizeWhenHidden(retained);
            w->setSizePolicy(policy);
        }
    }
    ControlsHidden(const ControlsHidden &) = delete;
    ControlsHidden &operator=(const ControlsHidden &) = delete;

private:
    std::vector<std::pair<QPointer<QWidget>, bool>> hidden_;
};
} // namespace

void renderVector(QWidget *view, QCPPainter &painter)
{
    const ControlsHidden controls(view);
    view->render(&painter);
    // QWidget::render paints QCustomPlot from its pixel buffer; draw the plots again as vectors
    // on top so their text (axes, markers, notes) stays text in the SVG.
    for (QCustomPlot *plot : view->findChildren<QCustomPlot *>()) {
        if (!plot->isVisibleTo(view))
            continue;
        painter.save();
        painter.translate(plot->mapTo(view, QPoint(0, 0)));
        plot->toPainter(&painter, plot->width(), plot->height());
        painter.restore();
    }
}

QString ExportFooter::text() const
{
    QStringList parts{file, device, moment, QStringLiteral("memlens %1").arg(version)};
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" · "));
}

QImage exportImage(QWidget *view, const std::optional<ExportFooter> &footer, qreal scale)
{
    const QSize logical(view->width(), view->height() + (footer ? kFooterHeight : 0));
    QImage image(logical * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(view->palette().color(QPalette::Window));
    QPainter p(&image);
    {
        const ControlsHidden controls(view);
        view->render(&p);
    }
    if (footer)
        drawFooter(p, QRect(0, view->height(), view->width(), kFooterHeight), *footer, view->palette());
    return image;
}

QString exportSvg(QWidget *view, const std::optional<ExportFooter> &footer, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        const QSize size(view->width(), view->height() + (footer ? kFooterHeight : 0));
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(view->logicalDpiX()); // else text comes out ~25 % too small
        svg.setTitle(footer ? footer->text() : QStringLiteral("memlens"));
        QCPPainter p(&svg);
        renderVector(view, p);
        if (footer)
            drawFooter(p, QRect(0, view->height(), view->width(), kFooterHeight), *footer, view->palette());
    }
    if (!file.commit())
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

QString savePng(const QImage &image, const QString &path)
{
    // Encoded in memory first: libpng writing to a full disk printed its own "libpng error:
    // Write Error" line, and the file's error was lost ("Unknown error").
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        return QObject::tr("%1: cannot encode the image as PNG").arg(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(png) != png.size() || !file.commit()) {
        // A full disk fails the commit's flush, which Qt reports as "Unknown error".
        const QStorageInfo disk(QFileInfo(path).absolutePath());
        if (disk.isValid() && disk.bytesAvailable() < png.size())
            return QObject::tr("%1: cannot write: no space left on the device (%2 bytes needed, %3 free)")
                .arg(path)
                .arg(png.size())
                .arg(disk.bytesAvailable());
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    }
    return {};
}

} // namespace memlens
