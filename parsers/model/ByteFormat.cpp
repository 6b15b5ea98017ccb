#include "model/ByteFormat.h"

#include <cstdio>

namespace memlens {

std::string formatBytes(uint64_t bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        ++unit;
    }
    char buf[32];
    if (unit == 0)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value, units[unit]);
    return buf;
}

std::string groupDigits(uint64_t value)
{
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string formatAddress(uint64_t address)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
    return text;
}

std::string formatDuration(int64_t us)
{
    char text[32];
    if (us >= 1'000'000)
        std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(us) / 1e6);
    else
        std::snprintf(text, sizeof text, "%.0f ms", static_cast<double>(us) / 1e3);
    return text;
}

} // namespace memlens
