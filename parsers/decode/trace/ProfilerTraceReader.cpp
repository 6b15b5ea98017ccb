#include "decode/trace/ProfilerTraceDecoder.h"

#include "decode/input/JsonInput.h"
#include "decode/trace/TraceEventSink.h"
#include "model/LoadError.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <simdjson.h>
#include <optional>
#include <string>
#include <vector>

// Profiler traces run to hundreds of MB, nearly all of it the traceEvents list. A byte scanner
// follows the structure up to that list; inside it, the stream is cut into batches of whole
// events (about 8 MB) that simdjson's On-Demand parser reads: memory stays bounded by the batch,
// not the file. A batch is cut before its last "}, {" when simdjson confirms the cut (a cut
// inside an event leaves a string or object open, which fails), else where the exact scan says.
// What lies outside the list is only checked for balance.

namespace memlens {

namespace {

using namespace simdjson;

constexpr size_t kChunk = 1 << 20;
constexpr size_t kBatch = 8 << 20; // events handed to simdjson at once

struct Number {
    double d;
    int64_t i;
    uint64_t u;
};

// A JSON number as the reference reader sees it: an integer (signed, else unsigned) keeps its
// value in all three; anything else (fractions, exponents, beyond 64 bits) is a double.
bool readNumber(ondemand::value &v, Number &n)
{
    ondemand::number_type type;
    if (v.get_number_type().get(type))
        return false;
    if (type == ondemand::number_type::signed_integer) {
        int64_t i;
        if (!v.get_int64().get(i)) {
            n = {static_cast<double>(i), i, static_cast<uint64_t>(i)};
            return true;
        }
    } else if (type == ondemand::number_type::unsigned_integer) {
        uint64_t u;
        if (!v.get_uint64().get(u)) {
            n = {static_cast<double>(u), static_cast<int64_t>(u), u};
            return true;
        }
    }
    double d;
    if (v.get_double().get(d))
        return false;
    n = {d, jsonInt64(d), jsonUint64(d)};
    return true;
}

[[noreturn]] void fail(uint64_t offset, error_code e)
{
    throw DecodeError(offset, std::string("invalid JSON: ") + error_message(e));
}

// A field's key, value and the value's type (inlined: called per field, 20 % slower as a call).
simdjson_inline error_code readField(simdjson_result<ondemand::field> &field, std::string_view &key, ondemand::value &v, ondemand::json_type &type)
{
    if (auto e = field.unescaped_key().get(key))
        return e;
    if (auto e = field.value().get(v))
        return e;
    return v.type().get(type);
}

// The memory fields of an event's args.
error_code readArgs(ondemand::object args, TraceEvent &ev)
{
    for (auto field : args) {
        std::string_view key;
        ondemand::value v;
        ondemand::json_type type;
        if (auto e = readField(field, key, v, type))
            return e;
        if (type != ondemand::json_type::number ||
            (key != "Device Type" && key != "Device Id" && key != "Addr" && key != "Bytes" && key != "Total Allocated" && key != "Total Reserved"))
            continue;
        Number n;
        if (!readNumber(v, n))
            return NUMBER_ERROR;
        if (key == "Device Type") {
            ev.deviceType = n.i;
        } else if (key == "Device Id") {
            ev.deviceId = n.i;
        } else if (key == "Addr") {
            ev.addr = n.u;
            ev.haveAddr = true;
        } else if (key == "Bytes") {
            ev.bytes = n.i;
            ev.haveBytes = true;
        } else if (key == "Total Allocated") {
            ev.totalAllocated = n.u;
            ev.haveTotals = true;
        } else if (key == "Total Reserved") {
            ev.totalReserved = n.u;
        }
    }
    return SUCCESS;
}

error_code readEvent(ondemand::object object, TraceEvent &ev)
{
    for (auto field : object) {
        std::string_view key;
        ondemand::value v;
        ondemand::json_type type;
        if (auto e = readField(field, key, v, type))
            return e;
        if (type == ondemand::json_type::string) {
            std::string_view s;
            if (auto e = v.get_string().get(s))
                return e;
            if (key == "ph")
                ev.ph = s.empty() ? 0 : s[0];
            else if (key == "name")
                ev.name = s;
            else if (key == "cat")
                ev.cat = s;
            else if (key == "tid")
                ev.tid = traceThreadId(s);
        } else if (type == ondemand::json_type::number && (key == "ts" || key == "dur")) {
            // Only the double is read: simdjson rounds an integer token as the cast does.
            double d;
            if (v.get_double().get(d)) {
                Number n;
                if (!readNumber(v, n))
                    return NUMBER_ERROR;
                d = n.d;
            }
            (key == "ts" ? ev.ts : ev.dur) = d;
        } else if (type == ondemand::json_type::number && key == "tid") {
            Number n;
            if (!readNumber(v, n))
                return NUMBER_ERROR;
            ev.tid = n.i;
        } else if (type == ondemand::json_type::object && key == "args") {
            ondemand::object args;
            if (auto e = v.get_object().get(args))
                return e;
            if (auto e = readArgs(args, ev))
                return e;
        }
    }
    return SUCCESS;
}

// Where the structure is, byte by byte: strings (with escapes), nesting, and the root's keys.
struct ScanState {
    int depth = 0;
    bool inString = false, escape = false;
    std::string key, lastString, rootKey;
};

class TraceScanner {
public:
    TraceScanner(ByteReader &reader, TraceEventSink &sink) : reader_(reader), sink_(sink), buffer_(kBatch + 2 * kChunk + SIMDJSON_PADDING + 1)
    {
        buffer_[0] = '[';
    }

    void run()
    {
        for (;;) {
            if (buffer_.size() - 1 - used_ < kChunk + SIMDJSON_PADDING)
                buffer_.resize(buffer_.size() * 2);
            const size_t n = reader_.readSome(content() + used_, kChunk);
            used_ += n;
            process(n == 0);
            if (n == 0)
                break;
        }
        if (state_.depth != 0 || state_.inString || !sawRoot_)
            throw DecodeError(reader_.offset(), sawRoot_ ? "invalid JSON: the file ends inside a value" : "invalid JSON: no value");
        sink_.finish(sawEvents_, reader_.offset());
    }

private:
    // The bytes not yet consumed start at content(); buffer_[0] is a '[' kept in front of them,
    // so a run of whole events there is a JSON array once a ']' follows.
    char *content() { return buffer_.data() + 1; }

    void consume(size_t count)
    {
        std::memmove(content(), content() + count, used_ - count);
        used_ -= count;
    }

    void process(bool eof)
    {
        for (;;) {
            if (!inList_) {
                const std::optional<size_t> open = scanOutside();
                if (!open) {
                    used_ = 0; // nothing outside the list is kept
                    return;
                }
                consume(*open + 1);
                inList_ = sawEvents_ = true;
                continue;
            }
            if (!eof && used_ < kBatch)
                return;
            // The usual case: cut before the last "}, {" and let simdjson confirm that it is a
            // run of whole events (a cut anywhere else leaves a string or an object open).
            if (!eof) {
                if (const std::optional<size_t> cut = likelyCut(); cut && parseEvents(*cut, false)) {
                    consume(*cut + 1);
                    continue;
                }
            }
            // Otherwise the exact scan finds the last comma between events, or the list's end.
            const ListScan scan = scanList();
            if (scan.end) {
                parseEvents(*scan.end, true);
                consume(*scan.end + 1);
                inList_ = false;
                state_.depth = 1;
                continue;
            }
            if (eof)
                return; // run() reports the open list
            if (scan.lastComma) {
                parseEvents(*scan.lastComma, true);
                consume(*scan.lastComma + 1);
            }
            return;
        }
    }

    // Outside the list: follows the structure to the '[' of a root "traceEvents" key.
    std::optional<size_t> scanOutside()
    {
        const char *data = content();
        for (size_t i = 0; i < used_; ++i) {
            const char c = data[i];
            ScanState &st = state_;
            if (st.inString) {
                if (st.escape)
                    st.escape = false;
                else if (c == '\\')
                    st.escape = true;
                else if (c == '"') {
                    st.inString = false;
                    if (st.depth == 1)
                        st.lastString = st.key;
                } else if (st.depth == 1 && st.key.size() < 32)
                    st.key.push_back(c);
                continue;
            }
            switch (c) {
            case '"':
                st.inString = true;
                st.key.clear();
                break;
            case ':':
                if (st.depth == 1)
                    st.rootKey = st.lastString;
                break;
            case ',':
                if (st.depth == 1)
                    st.rootKey.clear();
                break;
            case '{':
            case '[':
                if (st.depth == 0) {
                    if (sawRoot_)
                        throw DecodeError(reader_.offset(), "invalid JSON: more than one value");
                    if (c != '{')
                        throw DecodeError(reader_.offset(), "not a profiler trace: no traceEvents list");
                    sawRoot_ = true;
                }
                if (++st.depth > kMaxDepth)
                    throw DecodeError(reader_.offset(), "invalid JSON: nested deeper than " + std::to_string(kMaxDepth));
                if (st.depth == 2 && c == '[' && st.rootKey == "traceEvents")
                    return i;
                break;
            case '}':
            case ']':
                if (st.depth == 0)
                    throw DecodeError(reader_.offset(), std::string("invalid JSON: unexpected '") + c + "'");
                --st.depth;
                break;
            default:
                break;
            }
        }
        return std::nullopt;
    }

    struct ListScan {
        std::optional<size_t> lastComma; // between two events
        std::optional<size_t> end;       // the list's ']'
    };

    // Inside the list, from the start of an event (depth 2, outside strings).
    ListScan scanList()
    {
        ListScan out;
        const char *data = content();
        int depth = 2;
        bool inString = false, escape = false;
        for (size_t i = 0; i < used_; ++i) {
            const char c = data[i];
            if (inString) {
                if (escape)
                    escape = false;
                else if (c == '\\')
                    escape = true;
                else if (c == '"')
                    inString = false;
                continue;
            }
            if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                if (++depth > kMaxDepth)
                    throw DecodeError(reader_.offset(), "invalid JSON: nested deeper than " + std::to_string(kMaxDepth));
            } else if (c == '}' || c == ']') {
                if (--depth == 1) {
                    out.end = i;
                    return out;
                }
            } else if (c == ',' && depth == 2) {
                out.lastComma = i;
            }
        }
        return out;
    }

    // The last ',' with a '}' before it and a '{' after it (whitespace aside), in the newer half.
    std::optional<size_t> likelyCut()
    {
        const char *data = content();
        auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
        for (size_t i = used_; i-- > used_ / 2;) {
            if (data[i] != ',')
                continue;
            size_t after = i + 1, before = i;
            while (after < used_ && space(data[after]))
                ++after;
            while (before > 0 && space(data[before - 1]))
                --before;
            if (after < used_ && data[after] == '{' && before > 0 && data[before - 1] == '}')
                return i;
        }
        return std::nullopt;
    }

    // Parses content()[0, end) as a run of whole events (`end` holds the ',' or ']' after them)
    // and hands them over only when all of it parses. A failure throws when `mustParse`.
    bool parseEvents(size_t end, bool mustParse)
    {
        char *data = content();
        const char saved = data[end];
        data[end] = ']';
        pending_.clear();
        const error_code error = parseBatch(padded_string_view(buffer_.data(), end + 2, buffer_.size()));
        data[end] = saved;
        if (error) {
            if (mustParse)
                fail(reader_.offset(), error);
            return false;
        }
        for (const TraceEvent &e : pending_)
            sink_.add(e);
        return true;
    }

    error_code parseBatch(padded_string_view json)
    {
        ondemand::document doc;
        if (auto e = parser_.iterate(json).get(doc))
            return e;
        ondemand::array events;
        if (auto e = doc.get_array().get(events))
            return e;
        for (auto element : events) {
            ondemand::value v;
            if (auto e = element.get(v))
                return e;
            ondemand::json_type type;
            if (auto e = v.type().get(type))
                return e;
            if (type != ondemand::json_type::object)
                continue;
            ondemand::object object;
            if (auto e = v.get_object().get(object))
                return e;
            TraceEvent ev;
            if (auto e = readEvent(object, ev))
                return e;
            pending_.push_back(ev);
        }
        return SUCCESS;
    }

    static constexpr int kMaxDepth = 1000; // simdjson's own limit is 1024

    ByteReader &reader_;
    TraceEventSink &sink_;
    ondemand::parser parser_;
    std::vector<char> buffer_;
    size_t used_ = 0;
    ScanState state_;
    bool sawRoot_ = false, sawEvents_ = false, inList_ = false;
    std::vector<TraceEvent> pending_; // one batch's events, handed over once all of it parsed
};

} // namespace

void decodeProfilerTrace(ByteReader &reader, Snapshot &out)
{
    TraceEventSink sink(out);
    TraceScanner(reader, sink).run();
}

} // namespace memlens
