#pragma once

#include "ui/util/userpresets.h"

#include <nlohmann/json.hpp>

#include <QColor>
#include <QString>

class QLabel;
class QWidget;

namespace memwall::ui {

/// Number typed by the user in a display unit → JSON in base units: empty → null, a number → number × `scale`,
/// anything else → the text itself as a JSON string (so the core reports "expected a number, got \"abc\"").
nlohmann::json numberFromText(const QString &text, double scale);

/// Background of a field or table cell holding an invalid value, in both editors.
inline const QColor kInvalidBackground{0xfd, 0xe2, 0xe1};

/// A hidden, word-wrapped, selectable label in the editors' error colour, for a field's message.
QLabel *makeErrorLabel(QWidget *parent);

/// Gives `w` (null: nothing) the editors' background of an invalid value, or takes it away.
void setInvalid(QWidget *w, bool invalid);

/// A base-unit value shown in a display unit with up to 10 significant digits (no trailing zeros).
QString textFromNumber(double value, double scale);

} // namespace memwall::ui
