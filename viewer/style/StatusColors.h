#pragma once
// Text colours that carry a verdict ("fits"), chosen against the palette's background so they
// keep WCAG's 4.5 : 1 contrast for normal text in the light and the dark theme.
#include <QColor>

class QPalette;

namespace memlens {

QColor goodTextColor(const QPalette &palette);
// "Fits, but within the error of what priced it": amber, not grey (grey reads as disabled).
QColor cautionTextColor(const QPalette &palette);
// WCAG 2's contrast ratio of two colours (1 to 21).
double contrastRatio(const QColor &a, const QColor &b);

} // namespace memlens
