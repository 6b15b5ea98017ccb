#pragma once
#include <cstdint>
#include <string>

namespace memlens {

// "812.0 MiB", "8.09 GiB": binary units, three significant digits.
std::string formatBytes(uint64_t bytes);
// "1,234,567"
std::string groupDigits(uint64_t value);
// "0x7f3a00000000": lower-case hexadecimal, as addresses are shown and searched
std::string formatAddress(uint64_t address);
// "2.41 s", "380 ms": a stretch of time given in microseconds
std::string formatDuration(int64_t us);

} // namespace memlens
