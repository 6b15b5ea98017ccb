#pragma once
// What kind of file a snapshot came from and how it was compressed (FileFacts), with the names
// `summary --json`, the cache and the GUI write them under.
#include "model/EnumNames.h"

#include <cstdint>

namespace memlens {

enum class FileFormat : uint8_t { Pickle, Json, ChromeTrace, MemoryTimeline, MemoryTimelineRaw };
constexpr EnumNames<FileFormat, 5> kFileFormatNames{{{{FileFormat::Pickle, "pickle"},
                                                      {FileFormat::Json, "json"},
                                                      {FileFormat::ChromeTrace, "chrome-trace"},
                                                      {FileFormat::MemoryTimeline, "memory-timeline"},
                                                      {FileFormat::MemoryTimelineRaw, "memory-timeline-raw"}}}};

enum class Compression : uint8_t { None, Zstd, Gzip };
constexpr EnumNames<Compression, 3> kCompressionNames{{{{Compression::None, "none"}, {Compression::Zstd, "zstd"}, {Compression::Gzip, "gzip"}}}};

} // namespace memlens
