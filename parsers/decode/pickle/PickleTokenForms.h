#pragma once
// What the readers that take trace entries straight from the tokens (PickleEntryReader,
// PickleEntryShape) both look for: a memo write of the next slot after a value, and the items
// of a list as a pickler writes them after its EMPTY_LIST (and memo write): batches of MARK …
// APPENDS, or single items each followed by APPEND.
#include "decode/pickle/PickleTokenizer.h"

namespace memlens {

inline bool isMemo(TokenOp op) { return op == TokenOp::Memoize || op == TokenOp::Put; }

// Whether tokens[i] (i < end) writes the value before it to memo slot `next`, the memo's next:
// a MEMOIZE, or a PUT of that slot (a PUT of another is the machine's).
inline bool writesNextSlot(const PickleToken *tokens, size_t i, size_t end, size_t next)
{
    return i < end && (tokens[i].op == TokenOp::Memoize || (tokens[i].op == TokenOp::Put && tokens[i].slot == next));
}

// Whether tokens[j] is a memo reference that an APPEND follows: a list's single frame reference.
inline bool appendedReference(const PickleToken *tokens, size_t j, size_t end)
{
    return tokens[j].op == TokenOp::Get && j + 1 < end && tokens[j + 1].op == TokenOp::Append;
}

// Walks the items from tokens[i] up to `end`: `item()` reads the one at `i` and moves `i` past
// it (false: not one the caller takes); `single(j)` says whether tokens[j] starts an item that
// an APPEND follows. True when the list ends before `end` (at `i`), false when it is cut there
// or an item is refused.
template <typename Item, typename Single>
[[gnu::always_inline]] inline bool readListItems(const PickleToken *tokens, size_t &i, size_t end, Item item, Single single)
{
    while (i < end) {
        if (tokens[i].op == TokenOp::Mark) {
            ++i;
            while (i < end && tokens[i].op != TokenOp::Appends) {
                if (!item())
                    return false;
            }
            if (i >= end)
                return false;
            ++i; // APPENDS
        } else if (single(i)) {
            if (!item() || i >= end || tokens[i].op != TokenOp::Append)
                return false;
            ++i; // APPEND
        } else {
            return true;
        }
    }
    return false;
}

} // namespace memlens
