#pragma once
// An open file descriptor, closed with its owner, and reading from one at an offset.
#include <cerrno>
#include <cstdint>
#include <unistd.h>
#include <utility>

namespace memlens {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : fd_(fd) {}
    ~UniqueFd()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    UniqueFd(UniqueFd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept
    {
        std::swap(fd_, other.fd_);
        return *this;
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_;
};

// All `n` bytes at `offset`; false when the file ends before or a read fails.
inline bool readAt(int fd, uint64_t offset, void *into, size_t n)
{
    auto *to = static_cast<char *>(into);
    while (n > 0) {
        const ssize_t got = ::pread(fd, to, n, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        to += got, offset += static_cast<uint64_t>(got), n -= static_cast<size_t>(got);
    }
    return true;
}

} // namespace memlens
