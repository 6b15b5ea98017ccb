#include "style/BandColors.h"

#include "pipeline/Document.h"

#include <iterator>

namespace memlens {

QColor bandColor(uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    const int hue = static_cast<int>(h % 360);
    const int saturation = 130 + static_cast<int>((h >> 16) % 90);
    const int value = 170 + static_cast<int>((h >> 24) % 70);
    return QColor::fromHsv(hue, saturation, value);
}

QColor allocationColor(const DeviceData &device, AllocationId allocation, ColorMode mode)
{
    switch (mode) {
    case ColorMode::CallSite:
        return bandColor(0x5171E000ull + device.index->detail(allocation).stack.index());
    case ColorMode::Category:
        return device.categories ? categoryColor(static_cast<int>(device.categories->of(allocation))) : bandColor(allocation.index());
    case ColorMode::Allocation:
        break;
    }
    return bandColor(allocation.index());
}

QColor foldedBandColor(bool dark)
{
    return dark ? QColor(95, 100, 110) : QColor(190, 194, 200);
}

QColor poolEnvelopeColor(bool dark)
{
    return dark ? QColor(58, 60, 66) : QColor(228, 229, 232);
}

QColor categoryColor(int category)
{
    static const QColor colors[] = {QColor(46, 125, 50), QColor(65, 105, 225), QColor(218, 165, 32),
                                    QColor(220, 50, 50), QColor(147, 112, 219), QColor(0, 150, 136), QColor(150, 150, 150)};
    static_assert(std::size(colors) == kCategoryCount);
    return category >= 0 && category < kCategoryCount ? colors[category] : colors[kCategoryCount - 1];
}

} // namespace memlens
