#include "decode/input/FileChecksum.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace memlens {

uint64_t fnv1a(std::string_view bytes, uint64_t hash)
{
    for (unsigned char c : bytes)
        hash = (hash ^ c) * 0x100000001B3ull;
    return hash;
}

std::string snapshotChecksum(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    uint64_t h = kFnvOffsetBasis;
    auto mix = [&](const char *data, std::streamsize n) { h = fnv1a(std::string_view(data, static_cast<size_t>(n)), h); };
    std::string buffer(1 << 20, '\0');
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    mix(buffer.data(), in.gcount());
    if (size > buffer.size() * 2) {
        in.clear();
        in.seekg(static_cast<std::streamoff>(size - buffer.size()));
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        mix(buffer.data(), in.gcount());
    }
    char text[40];
    std::snprintf(text, sizeof text, "%llu-%016llx", static_cast<unsigned long long>(size), static_cast<unsigned long long>(h));
    return text;
}

} // namespace memlens
