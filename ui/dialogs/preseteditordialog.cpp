#include "ui/dialogs/preseteditordialog.h"

#include "ui/controls/presetpicker.h"
#include "ui/dialogs/presetfiles.h"

#include <QBoxLayout>
#include <QDialogButtonBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

namespace memwall::ui {

PresetEditorDialog::PresetEditorDialog(const core::PresetLibrary &presets, QString folder, QString saveFailedTitle,
                                       QWidget *parent)
    : QDialog(parent), m_presets(presets), m_folder(std::move(folder)), m_saveFailedTitle(std::move(saveFailedTitle))
{
    m_confirm = [this](const QString &question) {
        return QMessageBox::question(this, tr("Replace preset?"), question, QMessageBox::Yes | QMessageBox::Cancel) ==
               QMessageBox::Yes;
    };
}

PresetPicker *PresetEditorDialog::addCopyFromRow(QBoxLayout *layout, const QString &tooltip)
{
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(tr("Start from a &copy of:"), this);
    m_copyFrom = new PresetPicker(this);
    m_copyFrom->setObjectName("copyFrom");
    m_copyFrom->setToolTip(tooltip);
    label->setBuddy(m_copyFrom);
    row->addWidget(label);
    row->addWidget(m_copyFrom, 1);
    layout->addLayout(row);
    return m_copyFrom;
}

void PresetEditorDialog::addButtons(QBoxLayout *layout)
{
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Save)
        ->setToolTip(tr("Save as a user preset (presets/%1/ID.json in %2) and use it").arg(m_folder, userPresetDir()));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PresetEditorDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &PresetEditorDialog::reject);
    layout->addWidget(m_buttons);
}

void PresetEditorDialog::clearErrors()
{
    for (QLabel *l : std::as_const(m_errorLabels)) {
        l->clear();
        l->hide();
    }
    m_generalError->clear();
    m_generalError->hide();
    for (QWidget *w : std::as_const(m_fieldWidgets))
        setInvalid(w, false);
}

void PresetEditorDialog::revalidate()
{
    if (m_filling)
        return;
    m_json = collect();
    clearErrors();
    try {
        check(m_json);
        m_error.clear();
        m_errorField.clear();
    } catch (const core::InputError &e) {
        m_error = QString::fromStdString(e.what());
        m_errorField = QString::fromStdString(e.field());
        showError(e);
    } catch (const std::exception &e) {
        m_error = QString::fromStdString(e.what());
        m_errorField.clear();
        m_generalError->setText(m_error);
        m_generalError->show();
    }
    m_buttons->button(QDialogButtonBox::Save)->setEnabled(m_error.isEmpty());
    showSummary(m_error.isEmpty());
}

bool PresetEditorDialog::save(QString *error)
{
    revalidate();
    if (!isValid()) {
        if (error)
            *error = m_error;
        return false;
    }
    const QString id = presetId();
    const QString written =
        saveUserPresetAsking(m_folder, id, builtinNameFor(id), m_json, m_savedPath, m_confirm, error);
    if (written.isEmpty())
        return false;
    m_savedPath = written;
    saved(written);
    return true;
}

void PresetEditorDialog::accept()
{
    QString error;
    if (save(&error)) {
        QDialog::accept();
        return;
    }
    if (!error.isEmpty() && error != m_error)
        QMessageBox::warning(this, m_saveFailedTitle, error);
}

} // namespace memwall::ui
