#include "decode/trace/ProfilerTraceDecoder.h"

#include "decode/input/JsonInput.h"
#include "decode/trace/TraceEventSink.h"
#include "model/LoadError.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace memlens {

namespace {

enum class Field { None, Ph, Name, Cat, Pid, Tid, Ts, Dur, DeviceType, DeviceId, Addr, Bytes, TotalAllocated, TotalReserved, InputType };

class TraceSax {
public:
    explicit TraceSax(Snapshot &out) : sink_(out) {}

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(int64_t v) { return number(static_cast<double>(v), v, static_cast<uint64_t>(v)); }
    bool number_unsigned(uint64_t v) { return number(static_cast<double>(v), static_cast<int64_t>(v), v); }
    bool number_float(double v, const std::string &) { return number(v, jsonInt64(v), jsonUint64(v)); }
    bool string(std::string &s)
    {
        if (typesOpen_ && depth_ == 5) {
            if (inputType_.empty() && !s.empty()) {
                inputType_ = s;
                ev_.inputType = inputType_;
            }
            return true;
        }
        if (inEvent()) {
            switch (field_) {
            case Field::Ph: ev_.ph = s.empty() ? 0 : s[0]; break;
            case Field::Name: name_ = s; ev_.name = name_; break;
            case Field::Cat: cat_ = s; ev_.cat = cat_; break;
            case Field::Tid: ev_.tid = traceThreadId(s); break;
            default: break;
            }
        }
        return value();
    }
    bool binary(nlohmann::json::binary_t &) { return value(); }
    bool start_object(size_t)
    {
        ++depth_;
        if (depth_ == 1)
            sawRoot_ = true;
        if (inEvents_ && depth_ == 3) {
            ev_ = {};
            name_.clear();
            cat_.clear();
            inputType_.clear();
        }
        if (inEvents_ && depth_ == 4)
            argsOpen_ = argsKey_;
        field_ = Field::None;
        return true;
    }
    bool end_object()
    {
        if (inEvents_ && depth_ == 4)
            argsOpen_ = false;
        if (inEvents_ && depth_ == 3)
            sink_.add(ev_);
        --depth_;
        field_ = Field::None;
        return true;
    }
    bool start_array(size_t)
    {
        ++depth_;
        if (depth_ == 5)
            typesOpen_ = argsOpen_ && field_ == Field::InputType;
        if (depth_ == 2 && rootKey_ == "traceEvents") {
            inEvents_ = true;
            sawEvents_ = true;
        }
        field_ = Field::None;
        return true;
    }
    bool end_array()
    {
        if (depth_ == 2)
            inEvents_ = false;
        if (depth_ == 5)
            typesOpen_ = false;
        --depth_;
        field_ = Field::None;
        return true;
    }
    bool key(std::string &k)
    {
        if (depth_ == 1)
            rootKey_ = k;
        field_ = Field::None;
        if (!inEvents_)
            return true;
        if (depth_ == 3) {
            static const std::unordered_map<std::string, Field> fields = {
                {"ph", Field::Ph}, {"name", Field::Name}, {"cat", Field::Cat}, {"pid", Field::Pid},
                {"tid", Field::Tid}, {"ts", Field::Ts}, {"dur", Field::Dur}};
            if (auto it = fields.find(k); it != fields.end())
                field_ = it->second;
        } else if (depth_ == 4 && argsOpen_) {
            static const std::unordered_map<std::string, Field> args = {
                {"Device Type", Field::DeviceType}, {"Device Id", Field::DeviceId}, {"Addr", Field::Addr},
                {"Bytes", Field::Bytes}, {"Total Allocated", Field::TotalAllocated}, {"Total Reserved", Field::TotalReserved},
                {"Input type", Field::InputType}};
            if (auto it = args.find(k); it != args.end())
                field_ = it->second;
        }
        if (depth_ == 3)
            argsKey_ = k == "args";
        return true;
    }
    bool parse_error(size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        throwJsonError(position, e);
    }

    void finish(uint64_t offset) { sink_.finish(sawRoot_ && sawEvents_, offset); }

private:
    bool inEvent() const { return inEvents_ && (depth_ == 3 || (depth_ == 4 && argsOpen_)); }
    bool value()
    {
        field_ = Field::None;
        return true;
    }
    bool number(double d, int64_t i, uint64_t u)
    {
        if (inEvent()) {
            switch (field_) {
            case Field::Tid: ev_.tid = i; break;
            case Field::Ts: ev_.ts = d; break;
            case Field::Dur: ev_.dur = d; break;
            case Field::DeviceType: ev_.deviceType = i; break;
            case Field::DeviceId: ev_.deviceId = i; break;
            case Field::Addr: ev_.addr = u; ev_.haveAddr = true; break;
            case Field::Bytes: ev_.bytes = i; ev_.haveBytes = true; break;
            case Field::TotalAllocated: ev_.totalAllocated = u; ev_.haveTotals = true; break;
            case Field::TotalReserved: ev_.totalReserved = u; break;
            default: break;
            }
        }
        return value();
    }

    int depth_ = 0;
    bool sawRoot_ = false;
    bool sawEvents_ = false;
    bool inEvents_ = false;
    bool argsKey_ = false;
    bool argsOpen_ = false;
    bool typesOpen_ = false; // in args' "Input type" list
    std::string rootKey_;
    Field field_ = Field::None;
    TraceEvent ev_;
    std::string name_, cat_, inputType_; // what ev_'s views show
    TraceEventSink sink_;
};

} // namespace

bool parsePythonFunctionName(std::string_view text, std::string_view &file, int64_t &line, std::string_view &name)
{
    const auto open = text.find('(');
    const auto close = text.find("): ", open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return false;
    const std::string_view number = text.substr(open + 1, close - open - 1);
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), line);
    if (ec != std::errc() || ptr != number.data() + number.size())
        return false;
    file = text.substr(0, open);
    name = text.substr(close + 3);
    return true;
}

void decodeProfilerTraceReference(ByteReader &reader, Snapshot &out)
{
    TraceSax sax(out);
    parseJson(reader, sax);
    sax.finish(reader.offset());
}

} // namespace memlens
