#include "ui/widgets/formulapopup.h"

#include "core/analysis/derivation.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace memwall::ui {

FormulaPopup::FormulaPopup(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent, Qt::Tool), m_doc(doc), m_text(new QPlainTextEdit(this)),
      m_copy(new QPushButton(tr("&Copy"), this))
{
    setObjectName("formulaPopup");
    setWindowTitle(tr("Formula"));
    m_text->setObjectName("formulaText");
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setToolTip(tr("How the figure was computed, with this scenario's numbers. It follows every change of the "
                          "scenario. Select text to copy part of it."));
    m_copy->setToolTip(tr("Copy the whole derivation as text"));
    connect(m_copy, &QPushButton::clicked, this, &FormulaPopup::copyToClipboard);
    auto *close = new QPushButton(tr("Close"), this);
    close->setToolTip(tr("Close (Esc)"));
    connect(close, &QPushButton::clicked, this, &QWidget::close);
    // Esc closes, wherever the focus is in the window (the text view would otherwise take the key).
    m_text->installEventFilter(this);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_copy);
    buttons->addWidget(close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addLayout(buttons);
    const QFontMetrics fm(m_text->font());
    resize(fm.horizontalAdvance(QLatin1Char('m')) * 72, fm.lineSpacing() * 22);

    connect(doc, &ScenarioDocument::analysisChanged, this, [this] {
        if (isVisible())
            refresh();
    });
}

void FormulaPopup::showFields(const QStringList &fields)
{
    m_fields = fields;
    refresh();
    if (m_fields.isEmpty())
        return; // a field the analysis does not have: refresh() closed it
    show();
    raise();
    activateWindow();
}

QString FormulaPopup::text() const { return m_text->toPlainText(); }

void FormulaPopup::refresh()
{
    if (!m_doc->analysisError().isEmpty()) {
        // The document keeps the last analysis that worked, which no longer matches its scenario: derive nothing.
        m_text->setPlainText(tr("Cannot analyse this combination: %1").arg(m_doc->analysisError()));
        return;
    }
    QStringList parts;
    QString canonical;
    try {
        for (const QString &f : m_fields) {
            const core::Derivation d =
                core::derive(m_doc->hardware(), m_doc->model(), m_doc->scenario(), m_doc->analysis(), f.toStdString());
            if (canonical.isEmpty()) // what the figure is, in words: the field's key is for `memwall explain`
                canonical = qs(d.title);
            parts << qs(d.text());
        }
    } catch (const core::DerivationError &) {
        // The figure is gone (an operator the new model does not have).
        m_fields.clear();
        close();
        return;
    }
    setWindowTitle(tr("Formula: %1").arg(canonical));
    const QString text = parts.join(QStringLiteral("\n\n"));
    if (text != m_text->toPlainText())
        m_text->setPlainText(text);
}

void FormulaPopup::copyToClipboard() const { QApplication::clipboard()->setText(text()); }

bool FormulaPopup::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape) {
        close();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void FormulaPopup::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        close();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace memwall::ui
