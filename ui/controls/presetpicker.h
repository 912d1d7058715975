#pragma once

#include <QComboBox>

namespace memwall::ui {

/// A combo box of presets ("NVIDIA H100 SXM5 80GB — h100-sxm") that filters as you type: any part of the name or id
/// matches. Each item carries its id (Qt::UserRole) and a tooltip with its key numbers. idActivated() fires when the
/// user picks an item, never when the document writes the current id back with setCurrentId(). Enter picks the preset
/// whose id or name was typed whole ("h100-sxm", any case); other text is refused with notFound() and the current
/// preset's text comes back.
class PresetPicker : public QComboBox
{
    Q_OBJECT
public:
    explicit PresetPicker(QWidget *parent = nullptr);

    void addPreset(const QString &id, const QString &name, const QString &toolTip);
    /// Selects the preset with that id; an id not in the list (an imported model) shows `fallbackText` instead.
    void setCurrentId(const QString &id, const QString &fallbackText = QString());
    QString currentId() const;
    /// The row of the preset whose id, name or "name — id" is `typed` (trimmed, any case); -1 if none.
    int rowForText(const QString &typed) const;
    /// Opens the list as wide as its longest name: names are never cut mid-word ("NVIDIA A100 40GB …4").
    void showPopup() override;

signals:
    void idActivated(const QString &id);
    /// Enter was pressed on text that names no preset: one line saying so.
    void notFound(const QString &message);

protected:
    void focusOutEvent(QFocusEvent *event) override;

private:
    void restoreText();
    /// Enter in the line edit: picks the typed preset, or says why not and shows the current one again.
    void commitTyped();
    QString m_fallback;
};

} // namespace memwall::ui
