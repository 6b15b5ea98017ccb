#include "advice/WeightWidth.h"

#include "model/ByteFormat.h"

#include <map>

namespace memlens {

std::optional<WeightWidth> weightWidthFromShapes(const std::vector<uint64_t> &sizes)
{
    std::map<uint64_t, size_t> count;
    for (uint64_t s : sizes)
        ++count[s];
    // Per width, the vector size whose square matrices hold the most bytes. Matrices under
    // 64 KiB are left out: a norm's vector of 2 h bytes is itself an h/2-wide bf16 "square".
    WeightWidth best[2];
    uint64_t bestBytes[2] = {0, 0};
    for (const auto &[s, n] : count) {
        if (n < 2 || s > 256 * 1024) // hidden sizes up to 32,768 at 8 bytes; a norm per layer repeats
            continue;
        for (int w = 0; w < 2; ++w) {
            const uint64_t b = w == 0 ? 2 : 4;
            if (s % b || s * s / b < 64 * 1024)
                continue;
            const auto square = count.find(s * s / b);
            if (square != count.end() && square->second >= 2 && square->first * square->second > bestBytes[w]) {
                best[w] = {int(b), s / b, square->second, {}};
                bestBytes[w] = square->first * square->second;
            }
        }
    }
    // A clear answer: the other width's matches hold under a quarter of the bytes.
    const int w = bestBytes[0] > 4 * bestBytes[1] ? 0 : bestBytes[1] > 4 * bestBytes[0] ? 1 : -1;
    if (w < 0)
        return std::nullopt;
    WeightWidth out = best[w];
    out.how = std::to_string(out.matrices) + " square weight matrices of " + groupDigits(out.hidden) + " × " + groupDigits(out.hidden) + " at " +
              std::to_string(out.bytes) + " bytes each, beside " + groupDigits(out.hidden) + "-value vectors of " +
              groupDigits(out.hidden * uint64_t(out.bytes)) + " B";
    return out;
}

} // namespace memlens
