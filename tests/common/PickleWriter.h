#pragma once
// Writes pickles the way CPython's pickler does (protocol 2–5: EMPTY_DICT/MARK/SETITEMS,
// MEMOIZE or BINPUT, LONG1 for large ints), for tests that need files with known content.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

class PickleWriter {
public:
    explicit PickleWriter(int protocol = 4) : protocol_(protocol)
    {
        out_ += '\x80';
        out_ += static_cast<char>(protocol);
    }

    PickleWriter &dict() { out_ += '}'; memo(); return *this; }
    PickleWriter &list() { out_ += ']'; memo(); return *this; }
    PickleWriter &mark() { out_ += '('; return *this; }
    PickleWriter &setitems() { out_ += 'u'; return *this; }
    PickleWriter &appends() { out_ += 'e'; return *this; }
    PickleWriter &append() { out_ += 'a'; return *this; }
    PickleWriter &setitem() { out_ += 's'; return *this; }
    PickleWriter &none() { out_ += 'N'; return *this; }
    PickleWriter &boolean(bool b) { out_ += b ? '\x88' : '\x89'; return *this; }
    PickleWriter &tuple1() { out_ += '\x85'; memo(); return *this; }
    PickleWriter &tuple2() { out_ += '\x86'; memo(); return *this; }

    PickleWriter &integer(int64_t v)
    {
        if (v >= 0 && v < 256) {
            out_ += 'K';
            out_ += static_cast<char>(v);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            out_ += 'J';
            raw(static_cast<uint64_t>(v), 4);
        } else {
            out_ += '\x8a';
            out_ += '\x08';
            raw(static_cast<uint64_t>(v), 8);
        }
        return *this;
    }
    // LONG1 in as few bytes as hold `v` in two's complement, as CPython's encode_long writes it.
    PickleWriter &long1(int64_t v)
    {
        int n = 1;
        while (n < 8 && (v < -(int64_t(1) << (8 * n - 1)) || v > (int64_t(1) << (8 * n - 1)) - 1))
            ++n;
        out_ += '\x8a';
        out_ += static_cast<char>(n);
        raw(static_cast<uint64_t>(v), n);
        return *this;
    }
    // Values ≥ 2^63 as CPython writes them: LONG1 with a ninth, zero byte.
    PickleWriter &uinteger(uint64_t v)
    {
        out_ += '\x8a';
        out_ += '\x09';
        raw(v, 8);
        out_ += '\0';
        return *this;
    }
    PickleWriter &real(double v)
    {
        out_ += 'G';
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        for (int i = 7; i >= 0; --i)
            out_ += static_cast<char>(bits >> (8 * i));
        return *this;
    }
    // Strings are memoized once and referenced with BINGET afterwards, as CPython does.
    PickleWriter &str(const std::string &s)
    {
        if (auto it = strings_.find(s); it != strings_.end()) {
            get(it->second);
            return *this;
        }
        if (s.size() < 256) {
            out_ += '\x8c';
            out_ += static_cast<char>(s.size());
        } else {
            out_ += 'X';
            raw(s.size(), 4);
        }
        out_ += s;
        strings_[s] = memo();
        return *this;
    }
    // A string written again, not referenced: torch makes a new string object for some values
    // (compile_context's "N/A") on every entry, and the pickler memoizes each anew.
    PickleWriter &freshStr(const std::string &s)
    {
        out_ += '\x8c';
        out_ += static_cast<char>(s.size());
        out_ += s;
        memo();
        return *this;
    }
    PickleWriter &get(uint32_t slot)
    {
        if (slot < 256) {
            out_ += 'h';
            out_ += static_cast<char>(slot);
        } else {
            out_ += 'j';
            raw(slot, 4);
        }
        return *this;
    }
    // Memoizes the value on top of the stack, as CPython never does for a number.
    PickleWriter &memoize() { memo(); return *this; }
    // BINPUT: writes the top of the stack to memo slot `slot`, also one written before.
    PickleWriter &put(uint8_t slot)
    {
        out_ += 'q';
        out_ += static_cast<char>(slot);
        return *this;
    }
    uint32_t lastMemo() const { return next_ - 1; }
    // The memo slot of a string written with str().
    uint32_t slotOf(const std::string &s) const { return strings_.at(s); }
    std::string finish() { out_ += '.'; return out_; }
    std::string &bytes() { return out_; }

private:
    uint32_t memo()
    {
        if (protocol_ >= 4) {
            out_ += '\x94';
        } else if (next_ < 256) {
            out_ += 'q';
            out_ += static_cast<char>(next_);
        } else {
            out_ += 'r';
            raw(next_, 4);
        }
        return next_++;
    }
    void raw(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            out_ += static_cast<char>(v >> (8 * i));
    }

    int protocol_;
    uint32_t next_ = 0;
    std::string out_;
    std::map<std::string, uint32_t> strings_;
};
