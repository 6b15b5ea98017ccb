#include "decode/json/MemoryTimelineDecoder.h"

#include "decode/input/JsonInput.h"
#include "model/LoadError.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace memlens {

namespace {

// Collects the two layouts without a DOM: numbers directly inside root[i] (depth 2) and inside
// root[i][j] (depth 3).
class TimelineSax {
public:
    bool null() { return fail("null"); }
    bool boolean(bool) { return fail("true/false"); }
    bool number_integer(int64_t v) { return number(v); }
    bool number_unsigned(uint64_t v) { return number(static_cast<int64_t>(v)); }
    bool number_float(double v, const std::string &) { return number(jsonInt64(v)); }
    bool string(std::string &) { return fail("a string"); }
    bool binary(nlohmann::json::binary_t &) { return fail("binary data"); }
    bool start_object(size_t) { return fail("an object"); }
    bool end_object() { return true; }
    bool key(std::string &) { return true; }
    bool start_array(size_t)
    {
        ++depth_;
        if (depth_ > 3)
            return fail("nested lists");
        if (depth_ == 2)
            current_.clear(), nested_ = false;
        if (depth_ == 3)
            nested_ = true, row_.clear();
        return true;
    }
    bool end_array()
    {
        if (depth_ == 3) {
            if (row_.size() != 9)
                return fail("a timeline row without 9 values");
            rows_.push_back(row_);
        } else if (depth_ == 2) {
            if (!nested_) {
                if (element_ == 0)
                    first_ = current_;
                else if (current_.size() == 4)
                    raw_.push_back({current_[0], current_[1], current_[2], current_[3]});
                else
                    return fail("a raw event without 4 values");
            } else if (element_ != 1) {
                return fail("rows outside the second element");
            }
            ++element_;
        }
        --depth_;
        return true;
    }
    bool parse_error(size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        throwJsonError(position, e);
    }

    void finish(Snapshot &out, uint64_t offset)
    {
        CategoryTimeline t;
        if (!rows_.empty() || (element_ == 2 && raw_.empty() && first_.size() != 4)) {
            // [times, rows]
            if (first_.size() != rows_.size())
                throw DecodeError(offset, "not a memory timeline: " + std::to_string(first_.size()) + " times but " +
                                              std::to_string(rows_.size()) + " rows");
            for (size_t i = 0; i < rows_.size(); ++i) {
                t.timeUs.push_back(first_[i]);
                std::array<uint64_t, CategoryTimeline::kCategories> bytes{};
                for (int c = 0; c < CategoryTimeline::kCategories; ++c)
                    bytes[static_cast<size_t>(c)] = static_cast<uint64_t>(std::max<int64_t>(0, rows_[i][static_cast<size_t>(c) + 1]));
                t.bytes.push_back(bytes);
            }
            out.facts.format = FileFormat::MemoryTimeline;
        } else {
            if (first_.size() == 4)
                raw_.insert(raw_.begin(), {first_[0], first_[1], first_[2], first_[3]});
            replayRaw(t, offset);
            out.facts.format = FileFormat::MemoryTimelineRaw;
        }
        out.facts.hasTimes = true;
        out.categories = std::move(t);
    }

private:
    bool fail(const char *what)
    {
        throw DecodeError(LoadError::kNoOffset, std::string("not a memory timeline: found ") + what);
    }
    bool number(int64_t v)
    {
        if (depth_ == 2)
            current_.push_back(v);
        else if (depth_ == 3)
            row_.push_back(v);
        else
            return fail("a bare number");
        return true;
    }

    // torch's _coalesce_timeline: times in µs, pre-existing (-1) at the earliest time, one row per
    // distinct time, each row the running total per category.
    void replayRaw(CategoryTimeline &t, uint64_t offset)
    {
        int64_t tMin = -1;
        std::array<int64_t, CategoryTimeline::kCategories> live{};
        std::vector<int64_t> times;
        std::vector<std::array<int64_t, CategoryTimeline::kCategories>> sizes;
        for (const auto &[ns, action, bytes, category] : raw_) {
            if (action < 1 || action > 4)
                throw DecodeError(offset, "not a memory timeline: unknown action " + std::to_string(action));
            // torch computes int(t / 1000) with Python's true division: the exact quotient rounded
            // once to a double, then truncated. At 1.8e15 µs doubles are 0.25 apart, so a plain
            // integer division is off by one now and then; this reproduces Python's rounding.
            const int64_t us = ns == -1 ? -1 : static_cast<int64_t>(static_cast<double>(ns / 1000) + static_cast<double>(ns % 1000) / 1000.0);
            if (tMin == -1 || (us < tMin && us > 0))
                tMin = us;
            if (times.empty() || us != times.back()) {
                times.push_back(us);
                sizes.push_back(live);
            }
            const int c = category >= 0 && category < CategoryTimeline::kCategories ? static_cast<int>(category) : 7;
            live[static_cast<size_t>(c)] += bytes;
            sizes.back() = live;
        }
        for (size_t i = 0; i < times.size(); ++i) {
            t.timeUs.push_back(times[i] < 0 ? tMin : times[i]);
            std::array<uint64_t, CategoryTimeline::kCategories> row{};
            for (int c = 0; c < CategoryTimeline::kCategories; ++c)
                row[static_cast<size_t>(c)] = static_cast<uint64_t>(std::max<int64_t>(0, sizes[i][static_cast<size_t>(c)]));
            t.bytes.push_back(row);
        }
    }

    int depth_ = 0;
    int element_ = 0;
    bool nested_ = false;
    std::vector<int64_t> current_, row_, first_;
    std::vector<std::vector<int64_t>> rows_;
    std::vector<std::array<int64_t, 4>> raw_;
};

} // namespace

void decodeMemoryTimeline(ByteReader &reader, Snapshot &out)
{
    TimelineSax sax;
    parseJson(reader, sax);
    sax.finish(out, reader.offset());
}

} // namespace memlens
