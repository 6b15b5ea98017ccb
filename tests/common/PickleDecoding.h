#pragma once
// A pickle decoded with the tokenizer on a chosen thread and its entries read directly or by
// the stack machine, or the error it stopped at: what tst_decoding and fuzz_snapshot compare
// between the ways (Qt-free, for the fuzzer).
#include "decode/input/ByteReader.h"
#include "decode/pickle/PickleDecoder.h"
#include "model/LoadError.h"

#include <memory>
#include <string>

namespace memlens {

// The snapshot, or "error at <offset>: <message>"; how many entries were read directly.
struct Decoded {
    std::unique_ptr<Snapshot> snapshot;
    std::string error;
    DirectEntries direct;
};

inline Decoded decodeWith(OpenedSource opened, PickleTokenizing tokenizing, PickleEntries entries = PickleEntries::Direct)
{
    ByteReader reader(*opened.source, opened.fileSize, {});
    Decoded d;
    d.snapshot = std::make_unique<Snapshot>();
    try {
        d.direct = decodePickle(reader, *d.snapshot, tokenizing, entries);
    } catch (const DecodeError &e) {
        d.error = "error at " + std::to_string(e.offset) + ": " + e.what();
    }
    return d;
}

} // namespace memlens
