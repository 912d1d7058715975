#pragma once
// What the importer suites ask of a config.json: the test data's path, the one-line error an import fails with, and
// whether the import report names something.

#include "core/io/hfconfig.h"
#include "core/io/jsonreader.h"

#include <QString>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace testhf {

/// A config of the test data (tests/data/configs/).
inline std::string configPath(const char *file)
{
    return std::string(MEMWALL_SOURCE_DIR "/tests/data/configs/") + file;
}

/// The error importing `c` (read as the file `file`) fails with, or an empty string when it imports.
inline QString errorOf(const nlohmann::json &c, const std::string &file = "cfg.json")
{
    try {
        memwall::core::importHfConfig(c, file);
    } catch (const memwall::core::InputError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Whether a line of the import report contains `part`.
inline bool reportHas(const memwall::core::HfImport &in, const std::string &part)
{
    return std::any_of(in.report.begin(), in.report.end(),
                       [&](const std::string &l) { return l.find(part) != std::string::npos; });
}

} // namespace testhf
