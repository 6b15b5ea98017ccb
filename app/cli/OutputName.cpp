#include "cli/OutputName.h"

#include <QFile>
#include <QFileInfo>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace memlens {

OutputName::OutputName(std::string bytes) : bytes_(std::move(bytes)), path_(QString::fromStdString(bytes_))
{
    exact_ = path_.toStdString() == bytes_;
    if (exact_)
        return;
    const std::string folder = std::filesystem::path(bytes_).parent_path().string();
    const QString qtFolder = QString::fromStdString(folder.empty() ? std::string(".") : folder);
    if (qtFolder.toStdString() != (folder.empty() ? std::string(".") : folder))
        throw std::invalid_argument("-o: the folder's name is not UTF-8");
    const QString suffix = QFileInfo(path_).suffix();
    path_ = qtFolder + "/.memlens-render-" + QString::number(::getpid()) + "." + suffix;
}

OutputName::~OutputName()
{
    if (!exact_)
        QFile::remove(path_);
}

void OutputName::commit()
{
    if (exact_)
        return;
    if (std::rename(path_.toStdString().c_str(), bytes_.c_str()) != 0)
        throw std::runtime_error("-o: cannot name the image " + bytes_);
    exact_ = true; // nothing left to remove
}

} // namespace memlens
