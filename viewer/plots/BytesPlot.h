#pragma once
// The plots of memory over time (timeline, steps, categories) share their setup: they pan and
// zoom horizontally only, and their y axis counts bytes in binary units.
class QCustomPlot;
class QString;
class QWidget;

namespace memlens {

QCustomPlot *newBytesPlot(QWidget *parent, const QString &yLabel);

} // namespace memlens
