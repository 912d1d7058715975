#pragma once
// Shared by the UI suites: the built-in presets, loaded once per test executable.

#include "core/io/presets.h"

#include <memory>

namespace memwall::uitest {

inline std::shared_ptr<core::PresetLibrary> library()
{
    static const auto lib = [] {
        auto l = std::make_shared<core::PresetLibrary>();
        l->loadBuiltin();
        return l;
    }();
    return lib;
}

} // namespace memwall::uitest
