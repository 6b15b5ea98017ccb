#pragma once
// Y-axis ticks at round binary sizes (256 MiB, 1 GiB, 1.5 GiB…) labelled in KiB/MiB/GiB.
#include <qcustomplot.h>

namespace memlens {

class BinaryBytesTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange &range) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;
};

} // namespace memlens
