#pragma once
// The built-in preset library, loaded once per suite, and its presets by id (a missing one ends the suite).

#include "core/io/presets.h"

#include <QtGlobal>

namespace testpresets {

inline const memwall::core::PresetLibrary &lib()
{
    static const memwall::core::PresetLibrary l = [] {
        memwall::core::PresetLibrary p;
        p.loadBuiltin();
        return p;
    }();
    return l;
}

inline const memwall::core::HardwareSpec &hw(const char *id)
{
    const auto *h = lib().findHardware(id);
    if (!h)
        qFatal("missing hardware preset %s", id);
    return *h;
}

inline const memwall::core::ModelShape &model(const char *id)
{
    const auto *m = lib().findModel(id);
    if (!m)
        qFatal("missing model preset %s", id);
    return m->shape;
}

} // namespace testpresets
