#pragma once

#include "analysis/explain.h"

#include <QString>

#include <string_view>

namespace memwall::ui {

/// The core's UTF-8 text as a QString.
inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

/// A value with an SI prefix, as the core writes it: si(1.38e11, "B") == "138 GB".
inline QString si(double v, const char *unit) { return qs(core::formatSi(v, unit)); }

} // namespace memwall::ui
