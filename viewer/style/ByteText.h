#pragma once
// Byte counts as the viewer shows them ("1.50 GiB"): parsers' formatBytes, as a QString.
#include "model/ByteFormat.h"

#include <QString>

namespace memlens {

inline QString bytesText(uint64_t bytes)
{
    return QString::fromStdString(formatBytes(bytes));
}

} // namespace memlens
