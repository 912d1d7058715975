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
    // After QComboBox's own Return handling, which picks only the exact "name — id" text.
    connect(lineEdit(), &QLineEdit::returnPressed, this, &PresetPicker::commitTyped);
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

int PresetPicker::rowForText(const QString &typed) const
{
    const QString t = typed.trimmed();
    if (t.isEmpty())
        return -1;
    for (int i = 0; i < count(); ++i)
        if (itemData(i).toString().compare(t, Qt::CaseInsensitive) == 0)
            return i;
    const QString separator = QStringLiteral(" — ");
    for (int i = 0; i < count(); ++i) {
        const QString text = itemText(i);
        const QString name = text.left(text.lastIndexOf(separator));
        if (text.compare(t, Qt::CaseInsensitive) == 0 || name.compare(t, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

void PresetPicker::commitTyped()
{
    const QString typed = lineEdit()->text().trimmed();
    if (currentIndex() >= 0 && typed == itemText(currentIndex()))
        return; // nothing typed, or QComboBox already picked the exact text
    if (const int row = rowForText(typed); row >= 0) {
        {
            const QSignalBlocker block(this);
            setCurrentIndex(row);
        }
        restoreText();
        emit idActivated(itemData(row).toString());
        return;
    }
    if (!typed.isEmpty() && count() > 0)
        emit notFound(tr("No preset has the id or name \"%1\" (an id looks like %2); kept %3.")
                          .arg(typed, itemData(0).toString(),
                               currentIndex() >= 0 ? itemData(currentIndex()).toString() : m_fallback));
    restoreText();
}

void PresetPicker::focusOutEvent(QFocusEvent *event)
{
    QComboBox::focusOutEvent(event);
    restoreText(); // a half-typed search never stays as if it were the selection
}

} // namespace memwall::ui
