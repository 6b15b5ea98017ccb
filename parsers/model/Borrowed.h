#pragma once
// Holders for the parts of an index or layout (index/DeviceIndex.h, views/TimelineLayout.h): the
// parts as values (Owned, the container itself), or as views of a live object's containers
// (Borrowed), to be written out without a copy. One declaration of the parts serves both.
#include <cstddef>

namespace memlens {

template <typename Container>
using Owned = Container;

template <typename Container>
class Borrowed {
public:
    Borrowed() = default;
    Borrowed(const Container &c) : c_(&c) {} // implicit: a part is assigned its member
    auto data() const { return c_->data(); }
    size_t size() const { return c_->size(); }
    auto begin() const { return c_->begin(); }
    auto end() const { return c_->end(); }

private:
    const Container *c_ = nullptr;
};

} // namespace memlens
