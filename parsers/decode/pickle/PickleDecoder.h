#pragma once
// A pickle reader that understands only data opcodes (protocols 2–5). It never imports or
// calls anything: an opcode that would is reported as "not a memory snapshot".
#include "decode/input/ByteReader.h"
#include "model/Snapshot.h"

namespace memlens {

// Where the pickle's bytes are tokenized: on a second thread for files of a few hundred KB
// or more (BySize), or always on one or the other (tests compare the two).
enum class PickleTokenizing { BySize, OnThisThread, OnItsOwnThread };

// Whether torch's trace entries are read straight from the tokens (PickleEntryReader) or, like
// everything else, through the stack machine (tests compare the two).
enum class PickleEntries { Direct, ThroughTheMachine };

// How many trace entries were read straight from the tokens, and how many of those by the shape
// of an entry before (PickleEntryShape).
struct DirectEntries {
    size_t read = 0;
    size_t byShape = 0;
};

// Decodes a whole pickle from `reader` into `out`. Throws DecodeError with the byte offset.
DirectEntries decodePickle(ByteReader &reader, Snapshot &out, PickleTokenizing tokenizing = PickleTokenizing::BySize,
                  PickleEntries entries = PickleEntries::Direct);

} // namespace memlens
