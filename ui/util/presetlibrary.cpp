#include "ui/util/presetlibrary.h"

#include "ui/util/userpresets.h"

#include "core/util/oneline.h"

#include <iostream>

namespace memwall::ui {

std::shared_ptr<const core::PresetLibrary> loadPresetLibrary(const QString &extraDir)
{
    auto lib = std::make_shared<core::PresetLibrary>();
    lib->loadBuiltin();
    lib->loadDirectory(userPresetDir().toStdString());
    if (!extraDir.isEmpty())
        lib->loadDirectory(extraDir.toStdString(), true);
    for (const auto &issue : lib->issues())
        std::cerr << (issue.skipped ? "memwall: skipped preset: " : "memwall: duplicate preset: ")
                  << core::oneLine(issue.message) << "\n";
    return lib;
}

} // namespace memwall::ui
