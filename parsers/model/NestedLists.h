#pragma once
// Lists kept as one array of their elements and where each list starts: one allocation however
// many lists, and the form the cache keeps them in (so a reopen maps the elements in place). A
// 12 M-entry run's index holds ~1,500 live sets; as a vector each, a reopen copied every one
// out of the kept array, on one thread: 1.6 % of its samples (perf), 0.2 % since.
#include "model/PodArray.h"

#include <cstdint>
#include <iterator>
#include <span>
#include <stdexcept>
#include <vector>

namespace memlens {

template <typename T>
class NestedLists {
public:
    size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }
    std::span<const T> operator[](size_t i) const
    {
        return {all_.begin() + starts_[i], all_.begin() + starts_[i + 1]};
    }
    void push_back(std::span<const T> list)
    {
        if (starts_.empty())
            starts_.push_back(0);
        for (const T &value : list)
            all_.push_back(value);
        starts_.push_back(all_.size());
    }
    // Every element of every list, in order.
    const PodArray<T> &elements() const { return all_; }

    // Where each of lists of these `lengths` starts in their `elements` one after another, and
    // where the last ends; std::invalid_argument when the lengths do not add up to the elements.
    static std::vector<uint64_t> startsOf(const std::vector<uint64_t> &lengths, size_t elements)
    {
        std::vector<uint64_t> starts;
        starts.reserve(lengths.size() + 1);
        starts.push_back(0);
        for (const uint64_t length : lengths) {
            if (length > elements - starts.back())
                throw std::invalid_argument("lists past their elements");
            starts.push_back(starts.back() + length);
        }
        if (starts.back() != elements)
            throw std::invalid_argument("elements past their lists");
        return starts;
    }
    // From the lists' lengths and their elements one after another, as startsOf() checks them.
    static NestedLists fromLengths(const std::vector<uint64_t> &lengths, PodArray<T> all)
    {
        NestedLists lists;
        lists.starts_ = startsOf(lengths, all.size());
        lists.all_ = std::move(all);
        return lists;
    }

    // The lists in order, each a span.
    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::span<const T>;
        using difference_type = std::ptrdiff_t;
        const_iterator() = default;
        const_iterator(const NestedLists *lists, size_t i) : lists_(lists), i_(i) {}
        value_type operator*() const { return (*lists_)[i_]; }
        const_iterator &operator++()
        {
            ++i_;
            return *this;
        }
        bool operator==(const const_iterator &other) const { return i_ == other.i_; }

    private:
        const NestedLists *lists_ = nullptr;
        size_t i_ = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    std::vector<uint64_t> starts_; // size() + 1 of them, or none
    PodArray<T> all_;
};

} // namespace memlens
