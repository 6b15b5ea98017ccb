#include "style/StatusColors.h"

#include <QPalette>
#include <cmath>

namespace memlens {

namespace {
double luminance(const QColor &c)
{
    auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
} // namespace

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor goodTextColor(const QPalette &palette)
{
    // Material green 800 on light backgrounds, green 300 on dark ones.
    const QColor base = palette.color(QPalette::Base);
    return base.lightnessF() < 0.5 ? QColor(129, 199, 132) : QColor(46, 125, 50);
}

QColor cautionTextColor(const QPalette &palette)
{
    // Material amber 200 on dark backgrounds, a deep amber (orange 900) on light ones.
    const QColor base = palette.color(QPalette::Base);
    return base.lightnessF() < 0.5 ? QColor(255, 224, 130) : QColor(178, 84, 0);
}

} // namespace memlens
