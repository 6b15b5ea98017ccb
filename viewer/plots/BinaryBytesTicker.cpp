#include "plots/BinaryBytesTicker.h"

#include "style/ByteText.h"

namespace memlens {

double BinaryBytesTicker::getTickStep(const QCPRange &range)
{
    const double raw = range.size() / std::max(1, tickCount());
    double unit = 1;
    while (unit * 1024 <= raw)
        unit *= 1024;
    for (double m : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0}) {
        if (unit * m >= raw)
            return unit * m;
    }
    return unit * 1024;
}

QString BinaryBytesTicker::getTickLabel(double tick, const QLocale &, QChar, int)
{
    return tick <= 0 ? QStringLiteral("0") : bytesText(static_cast<uint64_t>(tick + 0.5));
}

} // namespace memlens
