#include "replay/AllocatorConfig.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace memlens {

namespace {

constexpr uint64_t MiB = 1ull << 20;

std::string trim(std::string s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.erase(s.begin());
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
    return s;
}

uint64_t positive(const std::string &key, const std::string &value)
{
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size())
        throw std::invalid_argument("alloc conf: " + key + " takes a whole number, not '" + value + "'");
    return v;
}

bool boolean(const std::string &key, const std::string &value)
{
    if (value == "True" || value == "true" || value == "1")
        return true;
    if (value == "False" || value == "false" || value == "0")
        return false;
    throw std::invalid_argument("alloc conf: " + key + " takes True or False, not '" + value + "'");
}

uint64_t divisions(const std::string &value)
{
    const uint64_t d = positive("roundup_power2_divisions", value);
    if (d != 0 && !std::has_single_bit(d))
        throw std::invalid_argument("alloc conf: roundup_power2_divisions must be a power of 2, not " + value);
    return d;
}

// "[256:1,512:2,>:8]", as torch reads it: an entry S MiB sets the interval [S, 2S); the first
// also every interval below it; ">" every interval after the last entry.
void parseDivisionList(const std::string &value, std::array<uint64_t, 16> &out)
{
    std::string body = value.substr(1, value.size() - 2);
    std::stringstream ss(body);
    std::string item;
    size_t last = 0;
    bool first = true;
    while (std::getline(ss, item, ',')) {
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            throw std::invalid_argument("alloc conf: roundup_power2_divisions entry '" + item + "' has no ':'");
        const std::string size = trim(item.substr(0, colon));
        const uint64_t d = divisions(trim(item.substr(colon + 1)));
        if (size == ">") {
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(last + 1), out.end(), d);
            continue;
        }
        const uint64_t mb = positive("roundup_power2_divisions", size);
        if (!std::has_single_bit(mb))
            throw std::invalid_argument("alloc conf: roundup_power2_divisions sizes must be powers of 2, not " + size);
        const size_t index = std::min<size_t>(static_cast<size_t>(std::bit_width(mb) - 1), out.size() - 1);
        if (first)
            std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(index), d);
        out[index] = d;
        last = index;
        first = false;
    }
}

} // namespace

AllocatorConfig AllocatorConfig::parse(const std::string &conf)
{
    AllocatorConfig c;
    // Split on commas outside brackets.
    std::vector<std::string> items;
    std::string cur;
    int depth = 0;
    for (char ch : conf) {
        depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
        if (ch == ',' && depth == 0) {
            items.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    items.push_back(cur);
    for (const std::string &raw : items) {
        const std::string item = trim(raw);
        if (item.empty())
            continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            throw std::invalid_argument("alloc conf: '" + item + "' is not KEY:VALUE");
        const std::string key = trim(item.substr(0, colon)), value = trim(item.substr(colon + 1));
        if (key == "expandable_segments") {
            c.expandableSegments = boolean(key, value);
        } else if (key == "max_split_size_mb") {
            const uint64_t mb = positive(key, value);
            if (mb * MiB <= 20 * MiB)
                throw std::invalid_argument("alloc conf: max_split_size_mb must be above 20, not " + value);
            c.maxSplitSize = mb * MiB;
        } else if (key == "max_non_split_rounding_mb") {
            const uint64_t mb = positive(key, value);
            if (mb <= 20 || mb > std::numeric_limits<uint64_t>::max() / MiB)
                throw std::invalid_argument("alloc conf: max_non_split_rounding_mb must be above 20, not " + value);
            c.maxNonSplitRounding = mb * MiB;
        } else if (key == "per_process_memory_fraction") {
            double f = -1;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), f);
            if (ec != std::errc() || ptr != value.data() + value.size() || !(f >= 0.0 && f <= 1.0))
                throw std::invalid_argument("alloc conf: per_process_memory_fraction takes a number from 0 to 1, not '" + value + "'");
            c.perProcessMemoryFraction = f;
        } else if (key == "throw_on_cudamalloc_oom") {
            c.throwOnCudaMallocOom = boolean(key, value);
        } else if (key == "garbage_collection_threshold") {
            double t = 0;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), t);
            if (ec != std::errc() || ptr != value.data() + value.size() || !(t > 0.0 && t < 1.0))
                throw std::invalid_argument("alloc conf: garbage_collection_threshold takes a number between 0 and 1, not '" + value + "'");
            c.garbageCollectionThreshold = t;
        } else if (key == "roundup_power2_divisions") {
            if (value.size() >= 2 && value.front() == '[' && value.back() == ']')
                parseDivisionList(value, c.roundupDivisions);
            else
                c.roundupDivisions.fill(divisions(value));
        } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" || key == "pinned_num_register_threads" ||
                   key == "backend" || key == "pinned_use_background_threads" || key == "graph_capture_record_stream_reuse") {
            continue; // no effect on reserved device memory
        } else {
            throw std::invalid_argument("alloc conf: unknown key '" + key + "'");
        }
    }
    return c;
}

AllocatorConfig AllocatorConfig::recorded(const Snapshot &snapshot)
{
    for (const auto &[key, value] : snapshot.allocatorSettings) {
        if ((key == "PYTORCH_CUDA_ALLOC_CONF" || key == "PYTORCH_ALLOC_CONF") && !value.empty() && value != "None") {
            try {
                return parse(value);
            } catch (const std::invalid_argument &) {
                break; // fall back to the separate keys
            }
        }
    }
    AllocatorConfig c;
    for (const auto &[key, value] : snapshot.allocatorSettings) {
        if (key == "expandable_segments")
            c.expandableSegments = value == "True";
        else if (key == "max_split_size" && !value.empty() && value[0] != '-') {
            uint64_t v = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc() && v > 0)
                c.maxSplitSize = v;
        } else if (key == "garbage_collection_threshold") {
            double t = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), t).ec == std::errc() && t > 0.0 && t < 1.0)
                c.garbageCollectionThreshold = t;
        } else if (key.rfind("roundup_power2_divisions.", 0) == 0) {
            uint64_t mb = 0, d = 0;
            const std::string size = key.substr(25);
            if (std::from_chars(size.data(), size.data() + size.size(), mb).ec == std::errc() && std::has_single_bit(mb) &&
                std::from_chars(value.data(), value.data() + value.size(), d).ec == std::errc()) {
                const auto index = static_cast<size_t>(std::bit_width(mb) - 1);
                if (index < c.roundupDivisions.size())
                    c.roundupDivisions[index] = d;
            }
        }
    }
    return c;
}

std::string AllocatorConfig::text() const
{
    std::string out;
    auto add = [&](const std::string &item) { out += (out.empty() ? "" : ",") + item; };
    if (expandableSegments)
        add("expandable_segments:True");
    if (maxSplitSize != std::numeric_limits<uint64_t>::max())
        add("max_split_size_mb:" + std::to_string(maxSplitSize / MiB));
    if (maxNonSplitRounding != 20 * MiB)
        add("max_non_split_rounding_mb:" + std::to_string(maxNonSplitRounding / MiB));
    if (perProcessMemoryFraction)
        add("per_process_memory_fraction:" + fractionText());
    if (throwOnCudaMallocOom)
        add("throw_on_cudamalloc_oom:True");
    if (garbageCollectionThreshold > 0) {
        std::ostringstream t;
        t << garbageCollectionThreshold; // "0.8", as written
        add("garbage_collection_threshold:" + t.str());
    }
    bool anyDivisions = false;
    for (uint64_t d : roundupDivisions)
        anyDivisions = anyDivisions || d > 1;
    if (anyDivisions) {
        std::string list;
        for (size_t i = 0; i < roundupDivisions.size(); ++i)
            list += (i ? "," : "") + (i + 1 == roundupDivisions.size() ? std::string(">") : std::to_string(1ull << i)) + ":" +
                    std::to_string(roundupDivisions[i]);
        add("roundup_power2_divisions:[" + list + "]");
    }
    return out;
}

std::optional<uint64_t> AllocatorConfig::fractionCapacity(uint64_t deviceTotal) const
{
    if (!perProcessMemoryFraction)
        return std::nullopt;
    // DeviceCachingAllocator::setMemoryFraction: allowed_memory_maximum = fraction * total, truncated.
    return static_cast<uint64_t>(*perProcessMemoryFraction * static_cast<double>(deviceTotal));
}

std::string AllocatorConfig::fractionText() const
{
    if (!perProcessMemoryFraction)
        return {};
    char digits[32];
    const auto end = std::to_chars(digits, digits + sizeof digits, *perProcessMemoryFraction).ptr;
    return std::string(digits, end);
}

uint64_t AllocatorConfig::divisionsFor(uint64_t size) const
{
    // torch: intervals start at 1 MiB; smaller sizes use the first one.
    const int log = std::bit_width(size) - 1;
    const int index = log > 20 ? log - 20 : 0;
    return roundupDivisions[static_cast<size_t>(std::min(index, 15))];
}

} // namespace memlens
