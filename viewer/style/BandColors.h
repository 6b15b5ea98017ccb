#pragma once
// Stable colours: the same allocation (or call site) gets the same colour in every view and
// every session, readable on light and dark backgrounds.
#include <array>
#include <cstdint>
#include <optional>
#include <QColor>
#include <string_view>

namespace memlens {

struct DeviceData;

// How allocations are coloured, the same on the timeline and the segment map.
enum class ColorMode { Allocation, CallSite, Category };
constexpr std::array kColorModes{ColorMode::Allocation, ColorMode::CallSite, ColorMode::Category};
// The one table of their names, as sessions and `render --color` spell them.
constexpr std::string_view colorModeName(ColorMode mode)
{
    constexpr std::string_view names[] = {"allocation", "site", "category"};
    return names[static_cast<int>(mode)];
}
constexpr std::optional<ColorMode> colorModeFromName(std::string_view name)
{
    for (ColorMode mode : kColorModes) {
        if (colorModeName(mode) == name)
            return mode;
    }
    return std::nullopt;
}

QColor bandColor(uint64_t key);
QColor allocationColor(const DeviceData &device, uint32_t allocation, ColorMode mode);
QColor foldedBandColor(bool dark);
// One colour per allocation category (parameter, gradient, optimizer state, activation,
// temporary, unknown), close to torch's memory-timeline colours.
QColor categoryColor(int category);

} // namespace memlens
