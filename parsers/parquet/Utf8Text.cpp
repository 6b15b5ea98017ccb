#include "parquet/Utf8Text.h"

namespace memlens::parquet {

size_t utf8SequenceLength(std::string_view text)
{
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continuation = [&](size_t i) { return i < text.size() && (byte(i) & 0xc0) == 0x80; };
    if (text.empty())
        return 0;
    const unsigned char lead = byte(0);
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf)
        return continuation(1) ? 2 : 0;
    if (lead >= 0xe0 && lead <= 0xef) {
        if (!continuation(1) || !continuation(2))
            return 0;
        const unsigned char second = byte(1);
        if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f)) // overlong; surrogates
            return 0;
        return 3;
    }
    if (lead >= 0xf0 && lead <= 0xf4) {
        if (!continuation(1) || !continuation(2) || !continuation(3))
            return 0;
        const unsigned char second = byte(1);
        if ((lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f)) // overlong; beyond U+10FFFF
            return 0;
        return 4;
    }
    return 0;
}

void appendValidUtf8(std::string &out, std::string_view text)
{
    size_t i = 0;
    while (i < text.size()) {
        size_t ascii = i;
        while (ascii < text.size() && static_cast<unsigned char>(text[ascii]) < 0x80)
            ++ascii;
        out.append(text.substr(i, ascii - i));
        i = ascii;
        if (i == text.size())
            break;
        if (const size_t n = utf8SequenceLength(text.substr(i))) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out.append("\xef\xbf\xbd");
            ++i;
        }
    }
}

} // namespace memlens::parquet
