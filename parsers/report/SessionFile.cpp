#include "report/SessionFile.h"

#include "decode/input/ByteReader.h"
#include "decode/input/ByteSource.h"
#include "model/LoadError.h"
#include "report/JsonText.h"

#include <cstdio>
#include <filesystem>
#include <limits>
#include <fstream>
#include <random>
#include <zstd.h>

namespace memlens {

namespace {
constexpr int kVersion = 1;

struct WrongType {};

// A JSON number as T. nlohmann converts a float to an integer type with a plain cast, which is
// undefined behaviour out of the type's range (the fuzzer found 1e37): the range is checked first.
template <typename T>
T integer(const nlohmann::json &v)
{
    using Limits = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        if (u <= static_cast<uint64_t>(Limits::max()))
            return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        const auto i = v.get<int64_t>();
        if (i >= static_cast<int64_t>(Limits::min()) && (i < 0 || static_cast<uint64_t>(i) <= static_cast<uint64_t>(Limits::max())))
            return static_cast<T>(i);
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        // Limits::max() rounds up to 2^64 as a double, hence < rather than <=.
        if (d >= static_cast<double>(Limits::min()) && d < static_cast<double>(Limits::max()))
            return static_cast<T>(d);
    }
    throw WrongType{};
}

template <typename T>
T integer(const nlohmann::json &object, const char *key, T fallback)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : integer<T>(*it);
}
// The longest search or what-if setting a session restores.
constexpr size_t kMaxSessionText = 1000;

} // namespace

void saveSession(const std::string &path, const Session &s, bool compress, const std::function<void()> &beforeCommit)
{
    nlohmann::json j = s.unknown.is_object() ? s.unknown : nlohmann::json::object();
    j["memlens_session"] = kVersion;
    j["snapshot"] = {{"path", s.snapshotPath}, {"size", s.snapshotSize}, {"checksum", s.snapshotChecksum}};
    j["device"] = s.device;
    j["page"] = s.page;
    j["time_axis"] = s.timeAxis;
    j["color"] = s.color;
    if (s.visibleFirst && s.visibleLast)
        j["visible"] = {*s.visibleFirst, *s.visibleLast};
    if (s.selectedEvent)
        j["selected_event"] = s.selectedEvent->index();
    if (s.selectedAllocation)
        j["selected_allocation"] = s.selectedAllocation->index();
    if (s.segmentBytesPerRow)
        j["segments"] = {{"bytes_per_row", *s.segmentBytesPerRow}};
    if (s.stacks)
        j["stacks"] = {{"bottom_up", s.stacks->bottomUp}, {"hide_noise", s.stacks->hideNoise}, {"python_only", s.stacks->pythonOnly},
                       {"fold_recursion", s.stacks->foldRecursion}, {"allocated_in_range", s.stacks->allocatedInRange},
                       {"flame_zoom", s.stacks->flameZoom}, {"group_by", s.stacks->groupBy}};
    if (s.search)
        j["search"] = *s.search;
    if (s.whatIf)
        j["what_if"] = *s.whatIf;
    j["notes"] = s.notes;
    std::string bytes = jsonText(j, 2) + "\n";
    if (compress) {
        std::string packed(ZSTD_compressBound(bytes.size()), '\0');
        const size_t n = ZSTD_compress(packed.data(), packed.size(), bytes.data(), bytes.size(), 3);
        if (ZSTD_isError(n))
            throw std::runtime_error(path + ": cannot compress the session");
        packed.resize(n);
        bytes = std::move(packed);
    }
    std::random_device random;
    const std::string temp = path + ".tmp-" + std::to_string(random());
    try {
        {
            std::ofstream out(temp, std::ios::binary | std::ios::trunc);
            if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush())
                throw std::runtime_error(path + ": cannot write the session");
        }
        if (beforeCommit)
            beforeCommit();
        std::error_code ec;
        std::filesystem::rename(temp, path, ec);
        if (ec)
            throw std::runtime_error(path + ": cannot write the session: " + ec.message());
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(temp, ignored);
        throw;
    }
}

Session loadSession(const std::string &path)
{
    OpenedSource opened = openByteSource(path);
    ByteReader reader(*opened.source, opened.fileSize, {});
    std::string text;
    try {
        char chunk[1 << 16];
        while (size_t n = reader.readSome(chunk, sizeof chunk)) {
            text.append(chunk, n);
            if (text.size() > (64u << 20))
                throw DecodeError(reader.offset(), "a session larger than 64 MiB is not a memlens session");
        }
    } catch (const DecodeError &e) {
        throw LoadError(path, e.offset, e.what());
    }
    return parseSession(text, path);
}

Session parseSession(std::string_view text, const std::string &path)
{
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("memlens_session") || !j.contains("snapshot"))
        throw LoadError(path, LoadError::kNoOffset, "not a memlens session");
    try {
        Session s;
        const auto &snap = j.at("snapshot");
        s.snapshotPath = snap.at("path").get<std::string>();
        s.snapshotSize = integer(snap, "size", uint64_t(0));
        s.snapshotChecksum = snap.value("checksum", std::string());
        s.device = integer(j, "device", 0);
        s.page = j.value("page", std::string("summary"));
        s.timeAxis = j.value("time_axis", false);
        s.color = j.value("color", s.color);
        if (j.contains("visible") && j["visible"].is_array() && j["visible"].size() == 2) {
            s.visibleFirst = j["visible"][0].get<double>();
            s.visibleLast = j["visible"][1].get<double>();
        }
        if (j.contains("selected_event"))
            s.selectedEvent = EventId(integer<uint32_t>(j["selected_event"]));
        if (j.contains("selected_allocation"))
            s.selectedAllocation = AllocationId(integer<uint32_t>(j["selected_allocation"]));
        // Older sessions called the notes "annotations".
        for (const char *key : {"annotations", "notes"}) {
            if (j.contains(key) && j[key].is_array())
                s.notes = j[key];
        }
        if (j.contains("segments") && j["segments"].is_object() && j["segments"].contains("bytes_per_row"))
            s.segmentBytesPerRow = integer<uint64_t>(j["segments"]["bytes_per_row"]);
        if (j.contains("stacks") && j["stacks"].is_object()) {
            const auto &st = j["stacks"];
            StacksViewState v;
            v.bottomUp = st.value("bottom_up", v.bottomUp);
            v.hideNoise = st.value("hide_noise", v.hideNoise);
            v.pythonOnly = st.value("python_only", v.pythonOnly);
            v.foldRecursion = st.value("fold_recursion", v.foldRecursion);
            v.allocatedInRange = st.value("allocated_in_range", v.allocatedInRange);
            v.flameZoom = st.value("flame_zoom", v.flameZoom);
            v.groupBy = st.value("group_by", v.groupBy);
            s.stacks = v;
        }
        // Untrusted text: a search is matched against every frame, so a bounded one bounds the work.
        for (auto [key, into] : {std::pair{"search", &s.search}, std::pair{"what_if", &s.whatIf}}) {
            if (!j.contains(key))
                continue;
            if (std::string text = j[key].get<std::string>(); text.size() <= kMaxSessionText)
                *into = std::move(text);
        }
        for (const char *known : {"memlens_session", "snapshot", "device", "page", "time_axis", "color", "visible", "selected_event",
                                  "selected_allocation", "segments", "stacks", "search", "what_if", "notes", "annotations"})
            j.erase(known);
        s.unknown = std::move(j);
        return s;
    } catch (const nlohmann::json::exception &) {
        throw LoadError(path, LoadError::kNoOffset, "not a memlens session: a field has the wrong type");
    } catch (const WrongType &) {
        throw LoadError(path, LoadError::kNoOffset, "not a memlens session: a number is not a whole number in range");
    }
}

} // namespace memlens
