#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace memlens {

// A file could not be read as a memory snapshot. what() is the one-line message users see:
// "FILE: byte OFFSET: reason" (the offset is left out when it does not apply).
class LoadError : public std::runtime_error {
public:
    static constexpr uint64_t kNoOffset = UINT64_MAX;

    LoadError(const std::string &file, uint64_t offset, const std::string &reason)
        : std::runtime_error(format(file, offset, reason)), offset_(offset)
    {
    }

    uint64_t offset() const { return offset_; }

private:
    static std::string format(const std::string &file, uint64_t offset, const std::string &reason)
    {
        std::string msg = file + ": ";
        if (offset != kNoOffset)
            msg += "byte " + std::to_string(offset) + ": ";
        return msg + reason;
    }

    uint64_t offset_;
};

// Thrown by decoders without knowing the file name; the loader adds it.
// Where in the file a decoder found it wrong; LoadError::kNoOffset where the problem has no one
// byte (a nesting limit, a value found wrong after the parse), so the message names none.
class DecodeError : public std::runtime_error {
public:
    DecodeError(uint64_t offset, const std::string &reason) : std::runtime_error(reason), offset(offset) {}
    uint64_t offset;
};

class LoadCancelled : public std::runtime_error {
public:
    LoadCancelled() : std::runtime_error("cancelled") {}
};

} // namespace memlens
