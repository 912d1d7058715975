#pragma once

#include <QComboBox>
#include <QSignalBlocker>
#include <QVariant>

namespace memwall::ui {

/// Shows the item of `box` carrying `data` (none when no item does) without emitting the box's signals: for a view
/// following the document, which must not echo the value back as an edit.
inline void selectData(QComboBox *box, const QVariant &data)
{
    const QSignalBlocker block(box);
    box->setCurrentIndex(box->findData(data));
}

} // namespace memwall::ui
