#include "decode/input/ByteSource.h"

#include "model/LoadError.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>
#include <zstd.h>

namespace memlens {

namespace {

class FileSource : public ByteSource {
public:
    explicit FileSource(std::FILE *file) : file_(file) {}
    ~FileSource() override { std::fclose(file_); }

    size_t read(char *buffer, size_t capacity) override
    {
        size_t n = std::fread(buffer, 1, capacity, file_);
        if (n == 0 && std::ferror(file_))
            throw DecodeError(read_, std::string("read error: ") + std::strerror(errno));
        read_ += n;
        return n;
    }
    uint64_t fileBytesRead() const override { return read_; }

private:
    std::FILE *file_;
    uint64_t read_ = 0;
};

class ZstdSource : public ByteSource {
public:
    explicit ZstdSource(std::unique_ptr<ByteSource> inner)
        : inner_(std::move(inner)), stream_(ZSTD_createDStream()), input_(ZSTD_DStreamInSize())
    {
        ZSTD_initDStream(stream_);
        // Refuse window sizes a hostile frame header could ask for beyond zstd's default limit.
        ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, 27);
    }
    ~ZstdSource() override { ZSTD_freeDStream(stream_); }

    size_t read(char *buffer, size_t capacity) override
    {
        ZSTD_outBuffer out{buffer, capacity, 0};
        while (out.pos == 0) {
            if (in_.pos == in_.size) {
                if (ended_)
                    return 0;
                size_t n = inner_->read(input_.data(), input_.size());
                if (n == 0) {
                    ended_ = true;
                    if (!frameDone_)
                        throw DecodeError(produced_, "zstd stream is truncated");
                    return 0;
                }
                in_ = ZSTD_inBuffer{input_.data(), n, 0};
            }
            size_t ret = ZSTD_decompressStream(stream_, &out, &in_);
            if (ZSTD_isError(ret))
                throw DecodeError(produced_, std::string("zstd: ") + ZSTD_getErrorName(ret));
            frameDone_ = (ret == 0);
        }
        produced_ += out.pos;
        return out.pos;
    }
    uint64_t fileBytesRead() const override { return inner_->fileBytesRead(); }

private:
    std::unique_ptr<ByteSource> inner_;
    ZSTD_DStream *stream_;
    std::vector<char> input_;
    ZSTD_inBuffer in_{nullptr, 0, 0};
    bool ended_ = false;
    bool frameDone_ = false;
    uint64_t produced_ = 0;
};

class GzipSource : public ByteSource {
public:
    explicit GzipSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)), input_(1 << 16)
    {
        std::memset(&z_, 0, sizeof z_);
        inflateInit2(&z_, 15 + 32); // 32: accept gzip and zlib headers
    }
    ~GzipSource() override { inflateEnd(&z_); }

    size_t read(char *buffer, size_t capacity) override
    {
        z_.next_out = reinterpret_cast<Bytef *>(buffer);
        const auto want = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
        z_.avail_out = want;
        while (z_.avail_out == want && !ended_) {
            if (z_.avail_in == 0) {
                size_t n = inner_->read(input_.data(), input_.size());
                if (n == 0)
                    throw DecodeError(produced_, "gzip stream is truncated");
                z_.next_in = reinterpret_cast<Bytef *>(input_.data());
                z_.avail_in = static_cast<uInt>(n);
            }
            int ret = inflate(&z_, Z_NO_FLUSH);
            if (ret == Z_STREAM_END) {
                // Concatenated gzip members are one stream to gzip(1); keep reading if more follows.
                if (z_.avail_in == 0) {
                    size_t n = inner_->read(input_.data(), input_.size());
                    if (n == 0) {
                        ended_ = true;
                        break;
                    }
                    z_.next_in = reinterpret_cast<Bytef *>(input_.data());
                    z_.avail_in = static_cast<uInt>(n);
                }
                inflateReset(&z_);
            } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
                throw DecodeError(produced_, std::string("gzip: ") + (z_.msg ? z_.msg : "corrupt data"));
            }
        }
        size_t n = want - z_.avail_out;
        produced_ += n;
        return n;
    }
    uint64_t fileBytesRead() const override { return inner_->fileBytesRead(); }

private:
    std::unique_ptr<ByteSource> inner_;
    std::vector<char> input_;
    z_stream z_;
    bool ended_ = false;
    uint64_t produced_ = 0;
};

class MemorySource : public ByteSource {
public:
    explicit MemorySource(std::string_view data) : data_(data) {}
    size_t read(char *buffer, size_t capacity) override
    {
        size_t n = std::min(capacity, data_.size() - pos_);
        std::memcpy(buffer, data_.data() + pos_, n);
        pos_ += n;
        return n;
    }
    uint64_t fileBytesRead() const override { return pos_; }

private:
    std::string_view data_;
    size_t pos_ = 0;
};

// Hands back bytes already read for magic detection before reading on.
class PrefixedSource : public ByteSource {
public:
    PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> inner)
        : prefix_(std::move(prefix)), inner_(std::move(inner))
    {
    }
    size_t read(char *buffer, size_t capacity) override
    {
        if (pos_ < prefix_.size()) {
            size_t n = std::min(capacity, prefix_.size() - pos_);
            std::memcpy(buffer, prefix_.data() + pos_, n);
            pos_ += n;
            return n;
        }
        return inner_->read(buffer, capacity);
    }
    uint64_t fileBytesRead() const override { return inner_->fileBytesRead(); }

private:
    std::string prefix_;
    size_t pos_ = 0;
    std::unique_ptr<ByteSource> inner_;
};

} // namespace

namespace {
OpenedSource detectCompression(std::unique_ptr<ByteSource> raw, uint64_t fileSize, const std::string &name)
{
    OpenedSource opened;
    opened.fileSize = fileSize;
    char magic[4] = {};
    size_t got = 0;
    while (got < sizeof magic) {
        size_t n = raw->read(magic + got, sizeof magic - got);
        if (n == 0)
            break;
        got += n;
    }
    if (got == 0)
        throw LoadError(name, LoadError::kNoOffset, "file is empty");
    std::unique_ptr<ByteSource> source = std::make_unique<PrefixedSource>(std::string(magic, got), std::move(raw));
    const auto *m = reinterpret_cast<const unsigned char *>(magic);
    if (got == 4 && m[0] == 0x28 && m[1] == 0xB5 && m[2] == 0x2F && m[3] == 0xFD) {
        opened.compression = Compression::Zstd;
        source = std::make_unique<ZstdSource>(std::move(source));
    } else if (got >= 2 && m[0] == 0x1F && m[1] == 0x8B) {
        opened.compression = Compression::Gzip;
        source = std::make_unique<GzipSource>(std::move(source));
    }
    opened.source = std::move(source);
    return opened;
}
} // namespace

OpenedSource openByteSource(const std::string &path)
{
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw LoadError(path, LoadError::kNoOffset, "no such file");
    if (std::filesystem::is_directory(status))
        throw LoadError(path, LoadError::kNoOffset, "is a directory, not a file");
    // A FIFO, a device or a socket would block the read (or never end): refused before opening,
    // and again on what was opened, without blocking, in case the path changed in between.
    if (!std::filesystem::is_regular_file(status))
        throw LoadError(path, LoadError::kNoOffset, "not a regular file (a FIFO, a device or a socket)");
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw LoadError(path, LoadError::kNoOffset, std::string("cannot open: ") + std::strerror(errno));
    struct stat opened {};
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) || ::fcntl(fd, F_SETFL, 0) != 0) {
        ::close(fd);
        throw LoadError(path, LoadError::kNoOffset, "not a regular file (a FIFO, a device or a socket)");
    }
    std::FILE *file = ::fdopen(fd, "rb");
    if (!file) {
        ::close(fd);
        throw LoadError(path, LoadError::kNoOffset, std::string("cannot open: ") + std::strerror(errno));
    }

    return detectCompression(std::make_unique<FileSource>(file), std::filesystem::file_size(path, ec), path);
}

OpenedSource openMemorySource(std::string_view data, const std::string &name)
{
    return detectCompression(std::make_unique<MemorySource>(data), data.size(), name);
}

} // namespace memlens
