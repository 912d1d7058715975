#pragma once

#include "core/io/presets.h"

#include <QString>

#include <memory>

namespace memwall::ui {

/// The presets the window and the command line both work with: the built-ins, then the per-user folder
/// (userPresetDir()), then `extraDir` if given (--presets DIR), each overriding earlier ones by id. A file that
/// cannot be used is skipped with one line on stderr ("memwall: skipped preset: ...") and kept in issues(); so is
/// an id defined by two user files ("memwall: duplicate preset: ...", naming both).
std::shared_ptr<const core::PresetLibrary> loadPresetLibrary(const QString &extraDir = {});

} // namespace memwall::ui
