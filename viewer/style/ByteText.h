#pragma once
// Byte counts as the viewer shows them ("1.50 GiB"): parsers' formatBytes, as a QString.
#include "model/ByteFormat.h"

#include <QString>

namespace memlens {

inline QString bytesText(uint64_t bytes)
{
    return QString::fromStdString(formatBytes(bytes));
}

// A change in bytes: "+1.50 GiB", "−8.00 MiB" (a true minus sign), "0 B".
inline QString signedBytesText(int64_t change)
{
    const uint64_t magnitude = change < 0 ? 0 - static_cast<uint64_t>(change) : static_cast<uint64_t>(change);
    return (change > 0 ? "+" : change < 0 ? "−" : "") + bytesText(magnitude);
}

} // namespace memlens
