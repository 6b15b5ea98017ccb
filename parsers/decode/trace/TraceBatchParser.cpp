#include "decode/trace/TraceBatchParser.h"

#include "decode/input/JsonInput.h"
#include "decode/trace/NameMatch.h"

namespace memlens {

using namespace simdjson;

namespace {

struct Number {
    double d;
    int64_t i;
    uint64_t u;
};

// A JSON number as the reference reader sees it: an integer (signed, else unsigned) keeps its
// value in all three; anything else (fractions, exponents, beyond 64 bits) is a double.
bool readNumber(ondemand::value &v, Number &n)
{
    // Nearly every number is a signed integer: read as one first (a failed read consumes
    // nothing), without asking simdjson for its type, a second parse of the token.
    if (int64_t i; !v.get_int64().get(i)) {
        n = {static_cast<double>(i), i, static_cast<uint64_t>(i)};
        return true;
    }
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

// A field's key (inlined: called per field, 20 % slower as a call). The key is its bytes in the
// batch unless it holds an escape: keys are only compared, and unescaping each into the
// parser's buffer was 6 % of reading a trace.
simdjson_inline error_code readKey(simdjson_result<ondemand::field> &field, std::string_view &key)
{
    ondemand::raw_json_string raw;
    if (auto e = field.key().get(raw))
        return e;
    const char *bytes = raw.raw();
    size_t n = 0;
    while (bytes[n] != '"' && bytes[n] != '\\') // stage 1 found the closing quote
        ++n;
    if (bytes[n] == '"')
        key = {bytes, n};
    else if (auto e = field.unescaped_key().get(key))
        return e;
    return SUCCESS;
}

// The field's value and its type, after readKey.
simdjson_inline error_code readValue(simdjson_result<ondemand::field> &field, ondemand::value &v, ondemand::json_type &type)
{
    if (auto e = field.value().get(v))
        return e;
    return v.type().get(type);
}

simdjson_inline error_code readField(simdjson_result<ondemand::field> &field, std::string_view &key, ondemand::value &v, ondemand::json_type &type)
{
    if (auto e = readKey(field, key))
        return e;
    return readValue(field, v, type);
}

// The first non-empty string of an operator's "Input type" list (the rest is skipped).
error_code readFirstType(ondemand::value &v, std::string_view &out)
{
    ondemand::array list;
    if (auto e = v.get_array().get(list))
        return e;
    for (auto element : list) {
        ondemand::value item;
        if (auto e = element.get(item))
            return e;
        ondemand::json_type type;
        if (auto e = item.type().get(type))
            return e;
        if (type != ondemand::json_type::string)
            continue;
        std::string_view s;
        if (auto e = item.get_string().get(s))
            return e;
        if (!s.empty()) {
            out = s;
            return SUCCESS;
        }
    }
    return SUCCESS;
}

// The memory fields of an event's args, and the operators' first input type.
error_code readArgs(ondemand::object args, TraceEvent &ev)
{
    for (auto field : args) {
        std::string_view key;
        ondemand::value v;
        ondemand::json_type type;
        if (auto e = readField(field, key, v, type))
            return e;
        if (type == ondemand::json_type::array && nameIs(key, "Input type")) {
            if (auto e = readFirstType(v, ev.inputType))
                return e;
            continue;
        }
        if (type != ondemand::json_type::number ||
            (!nameIs(key, "Device Type") && !nameIs(key, "Device Id") && !nameIs(key, "Addr") && !nameIs(key, "Bytes") &&
             !nameIs(key, "Total Allocated") && !nameIs(key, "Total Reserved")))
            continue;
        Number n;
        if (!readNumber(v, n))
            return NUMBER_ERROR;
        if (nameIs(key, "Device Type")) {
            ev.deviceType = n.i;
        } else if (nameIs(key, "Device Id")) {
            ev.deviceId = n.i;
        } else if (nameIs(key, "Addr")) {
            ev.addr = n.u;
            ev.haveAddr = true;
        } else if (nameIs(key, "Bytes")) {
            ev.bytes = n.i;
            ev.haveBytes = true;
        } else if (nameIs(key, "Total Allocated")) {
            ev.totalAllocated = n.u;
            ev.haveTotals = true;
        } else if (nameIs(key, "Total Reserved")) {
            ev.totalReserved = n.u;
        }
    }
    return SUCCESS;
}

// `lazy`: what the event says before the rest (torch writes "ph", "cat" and "name" first)
// decides what of the rest is read: nothing more of an event the sink drops (eventMatters(),
// which sets `dropped`), args unread where argsMatter() says the sink does not read them. A
// "ph", "cat" or "name" after such a decision could change it: `skipped` is set, and the caller
// reads the batch again whole.
error_code readEvent(ondemand::object object, TraceEvent &ev, bool lazy, bool &skipped, bool &dropped)
{
    bool argsSkipped = false;
    unsigned said = 0; // which of "ph", "cat" and "name" were strings
    dropped = false;
    for (auto field : object) {
        std::string_view key;
        if (auto e = readKey(field, key))
            return e;
        // Of a dropped event only what could undo the drop is read; the other values are
        // skipped unread (kernels' and runtime calls' args: a tenth of a trace's events).
        if (dropped && !nameIs(key, "ph") && !nameIs(key, "cat") && !nameIs(key, "name"))
            continue;
        ondemand::value v;
        ondemand::json_type type;
        if (auto e = readValue(field, v, type))
            return e;
        if (type == ondemand::json_type::string) {
            const unsigned which = nameIs(key, "ph") ? 1 : nameIs(key, "cat") ? 2 : nameIs(key, "name") ? 4 : 0;
            if (which == 0 && (dropped || !nameIs(key, "tid")))
                continue;
            std::string_view s;
            if (auto e = v.get_string().get(s))
                return e;
            if (which == 0) {
                ev.tid = traceThreadId(s);
                continue;
            }
            skipped = skipped || argsSkipped || dropped;
            if (which == 1)
                ev.ph = s.empty() ? 0 : s[0];
            else if (which == 2)
                ev.cat = s;
            else
                ev.name = s;
            said |= which;
            dropped = lazy && said == 7 && !eventMatters(ev.ph, ev.cat, ev.name);
        } else if (dropped) {
            continue;
        } else if (type == ondemand::json_type::number && (nameIs(key, "ts") || nameIs(key, "dur"))) {
            // Only the double is read: simdjson rounds an integer token as the cast does.
            double d;
            if (v.get_double().get(d)) {
                Number n;
                if (!readNumber(v, n))
                    return NUMBER_ERROR;
                d = n.d;
            }
            (nameIs(key, "ts") ? ev.ts : ev.dur) = d;
        } else if (type == ondemand::json_type::number && nameIs(key, "tid")) {
            Number n;
            if (!readNumber(v, n))
                return NUMBER_ERROR;
            ev.tid = n.i;
        } else if (type == ondemand::json_type::object && nameIs(key, "args")) {
            // Read when they come before what decides (the batch is not read twice for it).
            if (lazy && said == 7 && !argsMatter(ev.ph, ev.cat, ev.name)) {
                argsSkipped = true;
                continue;
            }
            ondemand::object args;
            if (auto e = v.get_object().get(args))
                return e;
            if (auto e = readArgs(args, ev))
                return e;
        }
    }
    return SUCCESS;
}

// One pass over the batch; `skipped` as readEvent's.
error_code parseEvents(ondemand::parser &parser, padded_string_view json, std::vector<TraceEvent> &events, bool lazy, bool &skipped)
{
    ondemand::document doc;
    if (auto e = parser.iterate(json).get(doc))
        return e;
    ondemand::array list;
    if (auto e = doc.get_array().get(list))
        return e;
    for (auto element : list) {
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
        bool dropped;
        if (auto e = readEvent(object, ev, lazy, skipped, dropped))
            return e;
        if (!dropped)
            events.push_back(ev);
    }
    return SUCCESS;
}

} // namespace

error_code parseTraceBatch(ondemand::parser &parser, padded_string_view json, std::vector<TraceEvent> &events)
{
    // Sized by the buffer, not by the batch: cut points vary, and each batch longer than any
    // before would otherwise have the parser allocate (and the kernel fault in) its buffers again.
    if (const size_t room = json.capacity() - SIMDJSON_PADDING; parser.capacity() < room) {
        if (const error_code e = parser.allocate(room))
            return e;
    }
    const size_t before = events.size();
    bool skipped = false;
    const error_code e = parseEvents(parser, json, events, true, skipped);
    if (e || !skipped)
        return e;
    events.resize(before);
    return parseEvents(parser, json, events, false, skipped);
}

} // namespace memlens
