#include "decode/json/JsonSnapshotDecoder.h"

#include "decode/input/JsonInput.h"
#include "decode/snapshot/ObjectArena.h"
#include "decode/snapshot/SnapshotAssembler.h"

#include <nlohmann/json.hpp>

namespace memlens {

namespace {

class SnapshotSax {
public:
    SnapshotSax(Snapshot &out) : asm_(out, arena_) {}

    bool null() { return attach(Value::none()); }
    bool boolean(bool b) { return attach(Value::boolean(b)); }
    bool number_integer(int64_t v) { return attach(Value::integer(v)); }
    bool number_unsigned(uint64_t v) { return attach(Value::uinteger(v)); }
    bool number_float(double v, const std::string &) { return attach(Value::real(v)); }
    bool string(std::string &s) { return attach(asm_.str(s)); }
    bool binary(nlohmann::json::binary_t &) { return attach(Value::ref(Kind::Bytes, 0)); }
    bool start_object(size_t) { return open(NodeKind::Dict); }
    bool start_array(size_t) { return open(NodeKind::List); }
    bool key(std::string &k)
    {
        open_.back().key = asm_.str(k);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        throwJsonError(position, e);
    }

    void finish(uint64_t offset)
    {
        if (!haveRoot_)
            throw DecodeError(offset, "empty JSON document");
        asm_.finish(root_, offset);
    }

private:
    struct Open {
        uint32_t id;
        Value key;
    };

    bool open(NodeKind kind)
    {
        if (open_.size() >= 10'000)
            throw DecodeError(LoadError::kNoOffset, "JSON nested deeper than 10000 levels");
        const uint32_t id = arena_.create(kind);
        arena_.retain(Value::ref(Kind::Node, id));
        open_.push_back({id, Value::none()});
        return true;
    }
    bool close()
    {
        const uint32_t id = open_.back().id;
        open_.pop_back();
        return attach(Value::ref(Kind::Node, id));
    }
    bool attach(Value v)
    {
        if (open_.empty()) {
            root_ = v;
            haveRoot_ = true;
            return true;
        }
        Open &parent = open_.back();
        if (arena_.at(parent.id).kind == NodeKind::Dict)
            asm_.setItem(parent.id, parent.key, v);
        else
            asm_.append(parent.id, v);
        return true;
    }

    ObjectArena arena_;
    SnapshotAssembler asm_;
    std::vector<Open> open_;
    Value root_;
    bool haveRoot_ = false;
};

} // namespace

void decodeJsonSnapshot(ByteReader &reader, Snapshot &out)
{
    SnapshotSax sax(out);
    parseJson(reader, sax);
    sax.finish(reader.offset());
    out.facts.format = FileFormat::Json;
}

} // namespace memlens
