#pragma once
// A point of a trace a user names: the peak, the first OOM, the end, or an event number. Parsed
// once where the user says it (the command line's --at, the compare dialog) and resolved here
// for every reader; the command line words its own errors.
#include "index/DeviceIndex.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

struct Moment {
    enum class Kind : uint8_t { Peak, Oom, End, Event };
    Kind kind = Kind::Peak;
    EventId event; // Kind::Event only

    static Moment peak() { return {Kind::Peak, {}}; }
    static Moment oom() { return {Kind::Oom, {}}; }
    static Moment end() { return {Kind::End, {}}; }
    static Moment at(EventId event) { return {Kind::Event, event}; }
    // "peak", "oom", "end" or an event number; nothing for any other text.
    static std::optional<Moment> parse(std::string_view text);
    std::string text() const;
    bool operator==(const Moment &) const = default;
};

// The moment `m` names on this device: after the entry it names (the peak's, the OOM's, the last
// one; the start when there is none). Throws std::invalid_argument saying why it names none
// ("device 0 has no OOM entry", "device 0 has 612 events").
TracePoint pointOf(const DeviceIndex &index, const Moment &m);
// "event 12", or "the start" before the first entry.
std::string pointText(TracePoint t);

} // namespace memlens
