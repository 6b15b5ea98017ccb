#pragma once
// Answers already given for a file, kept beside its cache entry (a side entry, cache/SideEntry:
// for the same file and executable only), so that a question asked again (`memlens summary
// FILE`) costs reading its answer, not indexing and summarising the snapshot again. A damaged
// file, or an answer that is not UTF-8 text without control characters (a newline apart), gives
// nothing.
#include "cache/SideEntry.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens {

// (question, answer) in the order stored, the newest last.
using AnswerList = std::vector<std::pair<std::string, std::string>>;

class StoredAnswers {
public:
    // At most this many questions are kept per file: the oldest is dropped for a new one.
    static constexpr size_t kMaxAnswers = 16;

    StoredAnswers(SnapshotCache cache, CacheKey key);
    std::optional<std::string> find(std::string_view question) const;
    // Adds the answer, or replaces the question's; false when it could not be written.
    bool store(std::string_view question, std::string_view answer) const;

private:
    SnapshotCache cache_;
    CacheKey key_;
};

// Whether `text` may be printed as an answer: UTF-8 without control characters but the newline.
bool isPrintableAnswer(std::string_view text);

// The file's bytes and back; exposed for the tests and the fuzz target. The reader gives
// nothing for bytes that are not answers for `key` by `executable`.
std::string makeAnswersFile(const CacheKey &key, std::string_view executable, const AnswerList &answers);
std::optional<AnswerList> readAnswersFile(std::string_view bytes, const CacheKey &key, std::string_view executable);

} // namespace memlens
