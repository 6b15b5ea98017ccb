#pragma once
// An output file named byte for byte. Qt spells file names in UTF-8: a name that is not UTF-8
// (a Latin-1 name) came out with U+FFFD in it. Such a name is written under a UTF-8 temporary
// name beside it and renamed to the exact bytes once whole; a failed write leaves nothing.
#include <QString>
#include <string>

namespace memlens {

class OutputName {
public:
    // Throws std::invalid_argument when the folder's own name is not UTF-8 (nowhere to write).
    explicit OutputName(std::string bytes);
    ~OutputName();
    OutputName(const OutputName &) = delete;
    OutputName &operator=(const OutputName &) = delete;

    // The name the writers write to.
    const QString &path() const { return path_; }
    // The file is whole: it gets its name. Throws std::runtime_error when the rename fails.
    void commit();

private:
    std::string bytes_;
    QString path_;
    bool exact_ = true;
};

} // namespace memlens
