#pragma once
// What the three JSON readers (snapshots, profiler traces, memory timelines) share: a
// std::streambuf over ByteReader for nlohmann's SAX parser, and its errors as DecodeError.
#include "decode/input/ByteReader.h"

#include <cmath>
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string>
#include <vector>

namespace memlens {

// A JSON number as an integer. NaN, infinities and values out of range give 0: a hostile file
// can hold 1e300, and converting that is undefined behaviour.
inline int64_t jsonInt64(double v)
{
    return std::isfinite(v) && v > -9.2e18 && v < 9.2e18 ? static_cast<int64_t>(v) : 0;
}
inline uint64_t jsonUint64(double v)
{
    return std::isfinite(v) && v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0;
}

class ReaderStreamBuf : public std::streambuf {
public:
    explicit ReaderStreamBuf(ByteReader &reader) : reader_(reader), buffer_(1 << 16) {}

protected:
    int_type underflow() override
    {
        size_t n = reader_.readSome(buffer_.data(), buffer_.size());
        if (n == 0)
            return traits_type::eof();
        setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
        return traits_type::to_int_type(buffer_[0]);
    }

private:
    ByteReader &reader_;
    std::vector<char> buffer_;
};

// nlohmann's parse error as "invalid JSON: …" at its byte offset (never returns).
[[noreturn]] inline void throwJsonError(size_t position, const nlohmann::detail::exception &e)
{
    std::string what = e.what();
    // Its messages start with "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    if (auto colon = what.find(": "); colon != std::string::npos && what.rfind("[json", 0) == 0)
        what = what.substr(colon + 2);
    throw DecodeError(position > 0 ? position - 1 : 0, "invalid JSON: " + what);
}

// Runs nlohmann's SAX parser over everything `reader` has left.
template <typename Sax>
void parseJson(ByteReader &reader, Sax &sax)
{
    ReaderStreamBuf buf(reader);
    std::istream stream(&buf);
    nlohmann::json::sax_parse(stream, &sax);
}

} // namespace memlens
