#pragma once
// Stable colours: the same allocation (or call site) gets the same colour in every view and
// every session, readable on light and dark backgrounds.
#include <QColor>
#include <cstdint>

namespace memlens {

struct DeviceData;

// How allocations are coloured, the same on the timeline and the segment map.
enum class ColorMode { Allocation, CallSite, Category };

QColor bandColor(uint64_t key);
QColor allocationColor(const DeviceData &device, uint32_t allocation, ColorMode mode);
QColor foldedBandColor(bool dark);
// One colour per allocation category (parameter, gradient, optimizer state, activation,
// temporary, unknown), close to torch's memory-timeline colours.
QColor categoryColor(int category);

} // namespace memlens
