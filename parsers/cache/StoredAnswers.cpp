#include "cache/StoredAnswers.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

namespace memlens {

namespace fs = std::filesystem;

namespace {

constexpr char kAnswersMagic[8] = {'M', 'L', 'A', 'N', 'S', 'W', 'R', '\n'};
// Larger is not a file of answers memlens wrote: it is not read.
constexpr uint64_t kMaxFileBytes = 16u << 20;

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

std::string executableIdentity(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return {};
    return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           std::to_string(st.st_ino);
}

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

std::string makeAnswersFile(const CacheKey &key, std::string_view executable, const AnswerList &answers)
{
    std::string out(kAnswersMagic, sizeof kAnswersMagic);
    out += cacheKeyBytes(key);
    putText(out, executable);
    const auto count = static_cast<uint32_t>(answers.size());
    out.append(reinterpret_cast<const char *>(&count), sizeof count);
    for (const auto &[question, answer] : answers) {
        putText(out, question);
        putText(out, answer);
    }
    return out;
}

std::optional<AnswerList> readAnswersFile(std::string_view bytes, const CacheKey &key, std::string_view executable)
{
    const std::string head = std::string(kAnswersMagic, sizeof kAnswersMagic) + cacheKeyBytes(key);
    if (executable.empty() || bytes.size() > kMaxFileBytes || !bytes.starts_with(head))
        return std::nullopt;
    bytes.remove_prefix(head.size());
    const std::optional<std::string_view> writer = takeText(bytes);
    uint32_t count = 0;
    if (!writer || *writer != executable || bytes.size() < sizeof count)
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

StoredAnswers::StoredAnswers(SnapshotCache cache, CacheKey key)
    : cache_(std::move(cache)), key_(std::move(key))
{
}

namespace {

std::optional<AnswerList> readAnswersAt(const std::string &path, const CacheKey &key)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size > kMaxFileBytes)
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return readAnswersFile(bytes, key, executableIdentity());
}

} // namespace

std::optional<std::string> StoredAnswers::find(std::string_view question) const
{
    if (cache_.directory().empty())
        return std::nullopt;
    const std::optional<AnswerList> answers = readAnswersAt(cache_.answersPath(key_), key_);
    if (!answers)
        return std::nullopt;
    const auto found = std::find_if(answers->begin(), answers->end(), [&](const auto &a) { return a.first == question; });
    if (found == answers->end())
        return std::nullopt;
    std::error_code ec;
    fs::last_write_time(cache_.answersPath(key_), fs::file_time_type::clock::now(), ec); // used: evicted last
    return found->second;
}

bool StoredAnswers::store(std::string_view question, std::string_view answer) const
{
    const std::string executable = executableIdentity();
    if (cache_.directory().empty() || executable.empty() || !isPrintableAnswer(question) || !isPrintableAnswer(answer) ||
        answer.size() + question.size() > kMaxFileBytes / 2)
        return false;
    const std::string path = cache_.answersPath(key_);
    AnswerList answers = readAnswersAt(path, key_).value_or(AnswerList{});
    std::erase_if(answers, [&](const auto &a) { return a.first == question; });
    answers.emplace_back(question, answer);
    while (answers.size() > kMaxAnswers || makeAnswersFile(key_, executable, answers).size() > kMaxFileBytes)
        answers.erase(answers.begin());
    std::error_code ec;
    fs::create_directories(cache_.directory(), ec);
    const std::string temp = path + ".tmp" + std::to_string(::getpid());
    bool ok = false;
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        const std::string bytes = makeAnswersFile(key_, executable, answers);
        ok = out && out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) && out.flush();
    }
    if (ok)
        fs::rename(temp, path, ec);
    if (!ok || ec) {
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

} // namespace memlens
