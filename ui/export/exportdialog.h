#pragma once

#include "ui/export/chartexporter.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace memwall::ui {

/// Asks how to export: format (PNG, SVG, PDF, or the data as CSV/JSON), pixel size with presets, PNG scale, theme,
/// title, caption and where to. In `AllCharts` mode the destination is a folder (one file per chart). Writes nothing
/// itself: the caller reads format(), path() and options() after exec() and calls the exporter.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    enum Mode { OneChart, AllCharts };

    /// `baseName` is the default file name without extension (a chart id); `folder` the default folder; `formats`
    /// the formats offered (ids of exportFormats()), in that list's order.
    ExportDialog(Mode mode, const QString &baseName, const QString &folder,
                 const QStringList &formats = exportFormats(), QWidget *parent = nullptr);

    /// The chosen format's id (one of exportFormats()).
    QString format() const;
    /// The file (OneChart) or folder (AllCharts) to write to.
    QString path() const;
    ExportOptions options() const;
    bool isDataFormat() const;

    void setFormat(const QString &format);
    void setOptions(const ExportOptions &options);
    void setPath(const QString &path);

    /// One line saying what is wrong with the current input, or empty when it can be exported.
    QString validationError() const;

public slots:
    void accept() override;

private:
    void onFormatChanged();
    void onPresetChanged();
    void syncPresetToSize();
    void browse();
    void updateState();

    Mode m_mode;
    QString m_baseName;
    QComboBox *m_format;
    QComboBox *m_preset;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QComboBox *m_scale;
    QComboBox *m_theme;
    QLineEdit *m_title;
    QLineEdit *m_caption;
    QLineEdit *m_path;
    QLabel *m_pixels;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
};

} // namespace memwall::ui
