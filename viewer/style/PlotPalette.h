#pragma once
// Colours a QCustomPlot's background, axes, labels and grid from the widget palette, so plots
// follow the light or dark theme.
class QCustomPlot;
class QPalette;

namespace memlens {

void applyPlotPalette(QCustomPlot *plot, const QPalette &palette);

// Whether the theme is dark, judged by the background views draw on, so each view picks the
// variant of its colours that stays readable there.
bool isDarkPalette(const QPalette &palette);

} // namespace memlens
