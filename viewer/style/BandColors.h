#pragma once
// Stable colours: the same allocation (or call site) gets the same colour in every view and
// every session, readable on light and dark backgrounds.
#include "model/EnumNames.h"
#include "model/Ids.h"

#include <cstdint>
#include <QColor>

namespace memlens {

struct DeviceData;

// How allocations are coloured, the same on the timeline and the segment map.
enum class ColorMode { Allocation, CallSite, Category };
// The one table of their names, as sessions and `render --color` spell them.
constexpr EnumNames<ColorMode, 3> kColorModeNames{{{{ColorMode::Allocation, "allocation"},
                                                   {ColorMode::CallSite, "site"},
                                                   {ColorMode::Category, "category"}}}};
constexpr std::array kColorModes = kColorModeNames.values();

constexpr std::string_view colorModeName(ColorMode mode)
{
    return kColorModeNames.name(mode);
}

constexpr std::optional<ColorMode> colorModeFromName(std::string_view name)
{
    return kColorModeNames.find(name);
}

QColor bandColor(uint64_t key);
QColor allocationColor(const DeviceData &device, AllocationId allocation, ColorMode mode);
QColor foldedBandColor(bool dark);
// A private pool's reserved but unused room (its envelope above what it holds).
QColor poolEnvelopeColor(bool dark);
// One colour per allocation category (parameter, gradient, optimizer state, activation,
// temporary, unknown), close to torch's memory-timeline colours.
QColor categoryColor(int category);

} // namespace memlens
