#include "analysis/Moment.h"

#include <charconv>
#include <stdexcept>

namespace memlens {

std::optional<Moment> Moment::parse(std::string_view text)
{
    if (text == "peak")
        return peak();
    if (text == "oom")
        return oom();
    if (text == "end")
        return end();
    uint32_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return at(value);
}

std::string Moment::text() const
{
    switch (kind) {
    case Kind::Peak:
        return "peak";
    case Kind::Oom:
        return "oom";
    case Kind::End:
        return "end";
    case Kind::Event:
        break;
    }
    return std::to_string(event);
}

uint32_t eventOf(const DeviceIndex &index, const Moment &m)
{
    const std::string device = "device " + std::to_string(index.device());
    switch (m.kind) {
    case Moment::Kind::Peak:
        return index.peakIndex();
    case Moment::Kind::Oom: {
        const auto ooms = index.oomEvents();
        if (ooms.empty())
            throw std::invalid_argument(device + " has no OOM entry");
        return ooms.front();
    }
    case Moment::Kind::End:
        if (index.eventCount() == 0)
            throw std::invalid_argument(device + " has no trace entries");
        return static_cast<uint32_t>(index.eventCount() - 1);
    case Moment::Kind::Event:
        break;
    }
    if (m.event >= index.eventCount())
        throw std::invalid_argument(device + " has " + std::to_string(index.eventCount()) + " events");
    return m.event;
}

} // namespace memlens
