#include "cache/StoredAnswers.h"

#include <algorithm>
#include <cstring>

namespace memlens {

namespace {

constexpr uint64_t kMaxFileBytes = 16u << 20;
constexpr SideEntryKind kAnswers{".answers", "MLANSWR\n", kMaxFileBytes};

void putText(std::string &out, std::string_view text)
{
    const auto n = static_cast<uint32_t>(text.size());
    out.append(reinterpret_cast<const char *>(&n), sizeof n);
    out += text;
}

// Takes a length-prefixed text off the front of `in`; nothing when it runs past the end.
std::optional<std::string_view> takeText(std::string_view &in)
{
    uint32_t n = 0;
    if (in.size() < sizeof n)
        return std::nullopt;
    std::memcpy(&n, in.data(), sizeof n);
    in.remove_prefix(sizeof n);
    if (n > in.size())
        return std::nullopt;
    const std::string_view text = in.substr(0, n);
    in.remove_prefix(n);
    return text;
}

// The length of the UTF-8 sequence `c` begins, 0 for a byte no sequence begins with.
size_t sequenceLength(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF)
        return 3;
    if (c >= 0xF0 && c <= 0xF4)
        return 4;
    return 0;
}

} // namespace

bool isPrintableAnswer(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const size_t n = sequenceLength(c);
        if (n == 0 || i + n > text.size())
            return false;
        if (n == 1 && ((c < 0x20 && c != '\n') || c == 0x7F))
            return false;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
                return false;
        // Overlong three- and four-byte forms, surrogates and code points past U+10FFFF.
        const auto second = static_cast<unsigned char>(n > 1 ? text[i + 1] : 0);
        if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) || (c == 0xF0 && second < 0x90) || (c == 0xF4 && second > 0x8F))
            return false;
        i += n;
    }
    return true;
}

namespace {

std::string answersPayload(const AnswerList &answers)
{
    std::string payload;
    const auto count = static_cast<uint32_t>(answers.size());
    payload.append(reinterpret_cast<const char *>(&count), sizeof count);
    for (const auto &[question, answer] : answers) {
        putText(payload, question);
        putText(payload, answer);
    }
    return payload;
}

std::optional<AnswerList> readAnswers(std::string_view bytes)
{
    uint32_t count = 0;
    if (bytes.size() < sizeof count)
        return std::nullopt;
    std::memcpy(&count, bytes.data(), sizeof count);
    bytes.remove_prefix(sizeof count);
    if (count > StoredAnswers::kMaxAnswers)
        return std::nullopt;
    AnswerList answers;
    for (uint32_t i = 0; i < count; ++i) {
        const std::optional<std::string_view> question = takeText(bytes);
        const std::optional<std::string_view> answer = question ? takeText(bytes) : std::nullopt;
        if (!answer || !isPrintableAnswer(*question) || !isPrintableAnswer(*answer))
            return std::nullopt;
        answers.emplace_back(*question, *answer);
    }
    if (!bytes.empty())
        return std::nullopt;
    return answers;
}

} // namespace

std::string makeAnswersFile(const CacheKey &key, std::string_view executable, const AnswerList &answers)
{
    return makeSideEntry(kAnswers, key, executable, answersPayload(answers));
}

std::optional<AnswerList> readAnswersFile(std::string_view bytes, const CacheKey &key, std::string_view executable)
{
    const std::optional<std::string_view> payload = sideEntryPayload(kAnswers, bytes, key, executable);
    return payload ? readAnswers(*payload) : std::nullopt;
}

StoredAnswers::StoredAnswers(SnapshotCache cache, CacheKey key)
    : cache_(std::move(cache)), key_(std::move(key))
{
}

std::optional<std::string> StoredAnswers::find(std::string_view question) const
{
    const std::optional<std::string> payload = readSideEntry(cache_, kAnswers, key_);
    const std::optional<AnswerList> answers = payload ? readAnswers(*payload) : std::nullopt;
    if (!answers)
        return std::nullopt;
    const auto found = std::find_if(answers->begin(), answers->end(), [&](const auto &a) { return a.first == question; });
    return found == answers->end() ? std::nullopt : std::optional(found->second);
}

bool StoredAnswers::store(std::string_view question, std::string_view answer) const
{
    if (!isPrintableAnswer(question) || !isPrintableAnswer(answer) || answer.size() + question.size() > kMaxFileBytes / 2)
        return false;
    const std::optional<std::string> payload = readSideEntry(cache_, kAnswers, key_);
    AnswerList answers = (payload ? readAnswers(*payload) : std::nullopt).value_or(AnswerList{});
    std::erase_if(answers, [&](const auto &a) { return a.first == question; });
    answers.emplace_back(question, answer);
    // The header's few hundred bytes are within the room left by the half a question may take.
    while (answers.size() > kMaxAnswers || answersPayload(answers).size() > kMaxFileBytes / 2)
        answers.erase(answers.begin());
    return writeSideEntry(cache_, kAnswers, key_, answersPayload(answers));
}

} // namespace memlens
