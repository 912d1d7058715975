#include "ui/export/exportdialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace memwall::ui {

namespace {

struct SizePreset
{
    QSize size;
    const char *label;
};

const SizePreset kPresets[] = {
    {{1920, 1080}, QT_TRANSLATE_NOOP("ExportDialog", "1920 × 1080 — full-HD slide")},
    {{1600, 1000}, QT_TRANSLATE_NOOP("ExportDialog", "1600 × 1000 — like the window")},
    {{1280, 720}, QT_TRANSLATE_NOOP("ExportDialog", "1280 × 720 — HD slide, web page")},
};

} // namespace

ExportDialog::ExportDialog(Mode mode, const QString &baseName, const QString &folder, const QStringList &formats,
                           QWidget *parent)
    : QDialog(parent), m_mode(mode), m_baseName(baseName.isEmpty() ? QStringLiteral("chart") : baseName)
{
    setWindowTitle(mode == OneChart ? tr("Export Chart") : tr("Export All Charts"));

    m_format = new QComboBox;
    for (const ExportFormatInfo &f : exportFormatList()) {
        if (!formats.contains(QLatin1String(f.id)))
            continue;
        m_format->addItem(QCoreApplication::translate("ExportDialog", f.label), QString::fromLatin1(f.id));
        m_format->setItemData(m_format->count() - 1, QCoreApplication::translate("ExportDialog", f.tip),
                              Qt::ToolTipRole);
    }
    m_format->setToolTip(tr("The file format: a picture (PNG, SVG, PDF) or the data behind the chart (CSV, JSON)"));

    m_preset = new QComboBox;
    for (const SizePreset &p : kPresets)
        m_preset->addItem(tr(p.label), p.size);
    m_preset->addItem(tr("Custom"), QSize());
    m_preset->setToolTip(tr("Common slide and page sizes; the chart is laid out at this size in pixels"));

    auto spin = [](const QString &tip) {
        auto *s = new QSpinBox;
        s->setRange(64, 16384);
        s->setSuffix(tr(" px"));
        s->setAccelerated(true);
        s->setToolTip(tip);
        return s;
    };
    m_width = spin(tr("Width of the chart's layout in pixels (64 to 16384)"));
    m_height = spin(tr("Height of the chart's layout in pixels (64 to 16384)"));
    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width, 1);
    sizeRow->addWidget(new QLabel(QStringLiteral("×")));
    sizeRow->addWidget(m_height, 1);

    m_scale = new QComboBox;
    for (int s : {1, 2, 3})
        m_scale->addItem(tr("×%1").arg(s), s);
    m_scale->setToolTip(tr("PNG only: multiplies the pixels without changing the layout (×2 for high-DPI screens "
                           "and sharp projector slides)"));
    m_pixels = new QLabel;
    m_pixels->setToolTip(tr("What the file will contain"));
    auto *scaleRow = new QHBoxLayout;
    scaleRow->addWidget(m_scale);
    scaleRow->addWidget(m_pixels, 1);

    m_theme = new QComboBox;
    for (const QString &id : Theme::ids())
        m_theme->addItem(Theme::byId(id).name, id);
    m_theme->setToolTip(tr("Colours, fonts and line widths; Presentation has large fonts and thick lines for the "
                           "lecture hall"));

    m_title = new QLineEdit;
    m_title->setPlaceholderText(tr("the chart's own title"));
    m_title->setToolTip(tr("Replaces the chart's title in the export (leave empty to keep it)"));
    m_title->setClearButtonEnabled(true);
    m_title->setMaxLength(kMaxExportTextLength);
    m_caption = new QLineEdit;
    m_caption->setPlaceholderText(tr("none"));
    m_caption->setToolTip(tr("An optional line under the chart: the source, the lecture, the date"));
    m_caption->setClearButtonEnabled(true);
    m_caption->setMaxLength(kMaxExportTextLength);

    m_path = new QLineEdit;
    m_path->setToolTip(mode == OneChart ? tr("The file to write; its extension follows the format")
                                        : tr("The folder to write into, one file per chart named after the chart"));
    auto *browse = new QPushButton(tr("&Browse…"));
    browse->setToolTip(mode == OneChart ? tr("Choose the file") : tr("Choose the folder"));
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);

    m_problem = new QLabel;
    m_problem->setWordWrap(true);
    QPalette warn = m_problem->palette();
    warn.setColor(QPalette::WindowText, Theme::light().warning);
    m_problem->setPalette(warn);

    auto *form = new QFormLayout;
    form->addRow(tr("&Format:"), m_format);
    form->addRow(tr("&Size:"), m_preset);
    form->addRow(QString(), sizeRow);
    auto *scaleLabel = new QLabel(tr("S&cale:"));
    scaleLabel->setBuddy(m_scale);
    form->addRow(scaleLabel, scaleRow);
    form->addRow(tr("&Theme:"), m_theme);
    form->addRow(tr("T&itle:"), m_title);
    form->addRow(tr("Ca&ption:"), m_caption);
    auto *pathLabel = new QLabel(mode == OneChart ? tr("Save &as:") : tr("F&older:"));
    pathLabel->setBuddy(m_path);
    form->addRow(pathLabel, pathRow);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Export"));

    setMinimumWidth(480);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    const QString startFolder = folder.isEmpty() ? QDir::homePath() : folder;
    m_path->setText(mode == OneChart ? QDir(startFolder).filePath(m_baseName + '.' + format()) : startFolder);
    setOptions(ExportOptions());

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &ExportDialog::onPresetChanged);
    connect(m_width, &QSpinBox::valueChanged, this, &ExportDialog::syncPresetToSize);
    connect(m_height, &QSpinBox::valueChanged, this, &ExportDialog::syncPresetToSize);
    connect(m_scale, &QComboBox::currentIndexChanged, this, &ExportDialog::updateState);
    connect(m_path, &QLineEdit::textChanged, this, &ExportDialog::updateState);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    updateState();
}

QString ExportDialog::format() const { return m_format->currentData().toString(); }

QString ExportDialog::path() const { return m_path->text().trimmed(); }

bool ExportDialog::isDataFormat() const { return ui::isDataFormat(format()); }

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.size = QSize(m_width->value(), m_height->value());
    o.scale = m_scale->currentData().toInt();
    o.theme = Theme::byId(m_theme->currentData().toString());
    o.title = m_title->text().trimmed();
    o.caption = m_caption->text().trimmed();
    return o;
}

void ExportDialog::setFormat(const QString &format)
{
    const int i = m_format->findData(format.toLower());
    if (i >= 0)
        m_format->setCurrentIndex(i);
}

void ExportDialog::setOptions(const ExportOptions &o)
{
    m_width->setValue(o.size.width());
    m_height->setValue(o.size.height());
    syncPresetToSize();
    const int s = m_scale->findData(qBound(1, qRound(o.scale), 3));
    m_scale->setCurrentIndex(std::max(0, s));
    const int t = m_theme->findData(o.theme.id);
    m_theme->setCurrentIndex(std::max(0, t));
    m_title->setText(o.title);
    m_caption->setText(o.caption);
    updateState();
}

void ExportDialog::setPath(const QString &path) { m_path->setText(path); }

QString ExportDialog::validationError() const
{
    const QString p = path();
    if (p.isEmpty())
        return m_mode == OneChart ? tr("Choose a file to save to.") : tr("Choose a folder to save into.");
    const QFileInfo info(p);
    if (m_mode == AllCharts) {
        if (info.exists() && !info.isDir())
            return tr("'%1' is a file, not a folder.").arg(QDir::toNativeSeparators(p));
        return {};
    }
    if (info.isDir())
        return tr("'%1' is a folder; add a file name.").arg(QDir::toNativeSeparators(p));
    if (info.suffix().toLower() != format())
        return tr("The file name should end in .%1 for this format.").arg(format());
    if (!info.absoluteDir().exists())
        return tr("The folder '%1' does not exist.").arg(QDir::toNativeSeparators(info.absolutePath()));
    return {};
}

void ExportDialog::accept()
{
    const QString problem = validationError();
    if (!problem.isEmpty()) {
        m_problem->setText(problem);
        m_problem->show();
        return;
    }
    QDialog::accept();
}

void ExportDialog::onFormatChanged()
{
    if (m_mode == OneChart) {
        // Keep the name, follow the format with the extension.
        const QString p = path();
        if (!p.isEmpty()) {
            const QFileInfo info(p);
            const QString stem = info.suffix().isEmpty() ? info.fileName() : info.completeBaseName();
            m_path->setText(QDir(info.path()).filePath(stem + '.' + format()));
        }
    }
    updateState();
}

void ExportDialog::onPresetChanged()
{
    const QSize s = m_preset->currentData().toSize();
    if (s.isValid()) {
        const QSignalBlocker bw(m_width), bh(m_height);
        m_width->setValue(s.width());
        m_height->setValue(s.height());
    }
    updateState();
}

void ExportDialog::syncPresetToSize()
{
    const QSize s(m_width->value(), m_height->value());
    int index = m_preset->count() - 1; // Custom
    for (int i = 0; i < m_preset->count() - 1; ++i)
        if (m_preset->itemData(i).toSize() == s)
            index = i;
    const QSignalBlocker block(m_preset);
    m_preset->setCurrentIndex(index);
    updateState();
}

void ExportDialog::browse()
{
    if (m_mode == AllCharts) {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export All Charts Into"), path());
        if (!dir.isEmpty())
            m_path->setText(dir);
        return;
    }
    const QString f = format();
    const QString filter = tr("%1 (*.%2)").arg(m_format->currentText(), f);
    QString file = QFileDialog::getSaveFileName(this, tr("Export Chart"), path(), filter);
    if (file.isEmpty())
        return;
    if (QFileInfo(file).suffix().toLower() != f)
        file += '.' + f;
    m_path->setText(file);
}

void ExportDialog::updateState()
{
    const bool data = isDataFormat();
    const bool png = format() == QLatin1String("png");
    for (QWidget *w :
         {static_cast<QWidget *>(m_preset), static_cast<QWidget *>(m_width), static_cast<QWidget *>(m_height),
          static_cast<QWidget *>(m_theme), static_cast<QWidget *>(m_title), static_cast<QWidget *>(m_caption)})
        w->setEnabled(!data);
    m_scale->setEnabled(png);

    const int w = m_width->value(), h = m_height->value();
    if (data)
        m_pixels->setText(tr("(pictures only)"));
    else if (png) {
        const int s = m_scale->currentData().toInt();
        m_pixels->setText(tr("%1 × %2 pixels").arg(w * s).arg(h * s));
    } else if (format() == QLatin1String("pdf")) {
        const QSizeF page = pdfPageSize(QSize(w, h));
        m_pixels->setText(tr("vector, one page of %1 × %2 pt").arg(qRound(page.width())).arg(qRound(page.height())));
    } else
        m_pixels->setText(tr("vector, view box %1 × %2").arg(w).arg(h));

    const QString problem = validationError();
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

} // namespace memwall::ui
