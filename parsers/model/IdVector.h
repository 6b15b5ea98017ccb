#pragma once
// A column indexed by one kind of id (a flag per stack, a figure per pool): subscripting it with
// another kind of id, or a bare integer, does not compile.
#include "model/Ids.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace memlens {

template <typename IdType, typename T>
class IdVector {
public:
    IdVector() = default;
    explicit IdVector(size_t size, const T &value = T()) : items_(size, value) {}

    decltype(auto) operator[](IdType id) { return items_[id.index()]; }
    decltype(auto) operator[](IdType id) const { return items_[id.index()]; }
    size_t size() const { return items_.size(); }
    // Appends `value`; its id.
    IdType push_back(T value)
    {
        const IdType id(static_cast<decltype(IdType().index())>(items_.size()));
        items_.push_back(std::move(value));
        return id;
    }
    auto begin() { return items_.begin(); }
    auto end() { return items_.end(); }
    auto begin() const { return items_.begin(); }
    auto end() const { return items_.end(); }

private:
    std::vector<T> items_;
};

} // namespace memlens
