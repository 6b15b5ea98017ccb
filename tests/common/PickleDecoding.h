#pragma once
// A pickle decoded with the tokenizer on a chosen thread, or the error it stopped at: what
// tst_decoding and fuzz_snapshot compare between the two ways (Qt-free, for the fuzzer).
#include "decode/input/ByteReader.h"
#include "decode/pickle/PickleDecoder.h"
#include "model/LoadError.h"

#include <memory>
#include <string>

namespace memlens {

// The snapshot, or "error at <offset>: <message>".
struct Decoded {
    std::unique_ptr<Snapshot> snapshot;
    std::string error;
};

inline Decoded decodeWith(OpenedSource opened, PickleTokenizing tokenizing)
{
    ByteReader reader(*opened.source, opened.fileSize, {});
    Decoded d;
    d.snapshot = std::make_unique<Snapshot>();
    try {
        decodePickle(reader, *d.snapshot, tokenizing);
    } catch (const DecodeError &e) {
        d.error = "error at " + std::to_string(e.offset) + ": " + e.what();
    }
    return d;
}

} // namespace memlens
