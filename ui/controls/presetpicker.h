#pragma once

#include <QComboBox>

namespace memwall::ui {

/// A combo box of presets ("NVIDIA H100 SXM5 80GB — h100-sxm") that filters as you type: any part of the name or id
/// matches. Each item carries its id (Qt::UserRole) and a tooltip with its key numbers. idActivated() fires when the
/// user picks an item, never when the document writes the current id back with setCurrentId().
class PresetPicker : public QComboBox
{
    Q_OBJECT
public:
    explicit PresetPicker(QWidget *parent = nullptr);

    void addPreset(const QString &id, const QString &name, const QString &toolTip);
    /// Selects the preset with that id; an id not in the list (an imported model) shows `fallbackText` instead.
    void setCurrentId(const QString &id, const QString &fallbackText = QString());
    QString currentId() const;
    /// Opens the list as wide as its longest name: names are never cut mid-word ("NVIDIA A100 40GB …4").
    void showPopup() override;

signals:
    void idActivated(const QString &id);

protected:
    void focusOutEvent(QFocusEvent *event) override;

private:
    void restoreText();
    QString m_fallback;
};

} // namespace memwall::ui
