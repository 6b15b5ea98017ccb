#include "index/Moment.h"

#include "model/EnumNames.h"

#include <charconv>
#include <stdexcept>

namespace memlens {

namespace {
// The moments named by a word; any other is an event number.
constexpr EnumNames<Moment::Kind, 3> kMomentNames{{{{Moment::Kind::Peak, "peak"}, {Moment::Kind::Oom, "oom"}, {Moment::Kind::End, "end"}}}};
} // namespace

std::optional<Moment> Moment::parse(std::string_view text)
{
    if (const auto kind = kMomentNames.find(text))
        return Moment{*kind, {}};
    uint32_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return at(EventId(value));
}

std::string Moment::text() const
{
    return kind == Kind::Event ? std::to_string(event.index()) : std::string(kMomentNames.name(kind));
}

std::string pointText(TracePoint t)
{
    return t.isStart() ? "the start" : "event " + std::to_string(t.lastEntry().index());
}

TracePoint pointOf(const DeviceIndex &index, const Moment &m)
{
    const std::string device = "device " + std::to_string(index.device());
    switch (m.kind) {
    case Moment::Kind::Peak:
        return index.peak();
    case Moment::Kind::Oom: {
        const auto ooms = index.oomEvents();
        if (ooms.empty())
            throw std::invalid_argument(device + " has no OOM entry");
        return TracePoint::after(ooms.front());
    }
    case Moment::Kind::End:
        return index.end(); // without entries, the state before them: the final segments
    case Moment::Kind::Event:
        break;
    }
    if (m.event.index() >= index.eventCount())
        throw std::invalid_argument(device + " has " + std::to_string(index.eventCount()) + " events");
    return TracePoint::after(m.event);
}

} // namespace memlens
