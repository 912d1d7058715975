#include "ui/controls/presetpicker.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalBlocker>

namespace memwall::ui {

PresetPicker::PresetPicker(QWidget *parent) : QComboBox(parent)
{
    setEditable(true);
    setInsertPolicy(QComboBox::NoInsert);
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(24);
    setMaxVisibleItems(20);
    auto *completer = new QCompleter(model(), this);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    setCompleter(completer);
    lineEdit()->setPlaceholderText(tr("Type to search…"));
    lineEdit()->setClearButtonEnabled(true);

    connect(this, &QComboBox::activated, this, [this](int index) {
        if (index >= 0)
            emit idActivated(itemData(index).toString());
    });
    connect(completer, qOverload<const QString &>(&QCompleter::activated), this, [this](const QString &text) {
        // Map by text: the completer reports rows of its filtered model, not ours.
        const int row = findText(text);
        if (row >= 0) {
            setCurrentIndex(row);
            emit idActivated(itemData(row).toString());
        }
    });
}

void PresetPicker::addPreset(const QString &id, const QString &name, const QString &toolTip)
{
    const QSignalBlocker block(this);
    addItem(QStringLiteral("%1 — %2").arg(name, id), id);
    setItemData(count() - 1, toolTip, Qt::ToolTipRole);
}

void PresetPicker::showPopup()
{
    view()->setTextElideMode(Qt::ElideNone);
    const int scrollBar = view()->verticalScrollBar() ? view()->verticalScrollBar()->sizeHint().width() : 0;
    view()->setMinimumWidth(view()->sizeHintForColumn(0) + scrollBar + 2 * view()->frameWidth() + 8);
    QComboBox::showPopup();
}

QString PresetPicker::currentId() const
{
    return currentIndex() >= 0 ? itemData(currentIndex()).toString() : QString();
}

void PresetPicker::setCurrentId(const QString &id, const QString &fallbackText)
{
    const QSignalBlocker block(this);
    // The current row is the common answer (every control re-syncs on every change); otherwise search.
    const int row = currentIndex() >= 0 && itemData(currentIndex()).toString() == id ? currentIndex() : findData(id);
    const QString fallback = row < 0 ? fallbackText : QString();
    // The document re-syncs every control on every change: leave an unchanged picker alone (no repaint).
    if (row == currentIndex() && fallback == m_fallback && lineEdit()->text() == (row >= 0 ? itemText(row) : fallback))
        return;
    m_fallback = fallback;
    setCurrentIndex(row);
    restoreText();
    setToolTip(row >= 0 ? itemData(row, Qt::ToolTipRole).toString() : fallbackText);
}

void PresetPicker::restoreText()
{
    const QSignalBlocker block(this);
    if (currentIndex() >= 0)
        setEditText(itemText(currentIndex()));
    else
        setEditText(m_fallback);
    lineEdit()->setCursorPosition(0); // show the start of a long name, not its end
}

void PresetPicker::focusOutEvent(QFocusEvent *event)
{
    QComboBox::focusOutEvent(event);
    restoreText(); // a half-typed search never stays as if it were the selection
}

} // namespace memwall::ui
