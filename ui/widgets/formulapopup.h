#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace memwall::ui {

class ScenarioDocument;

/// "Show the formula": a small non-modal window with the derivations of some figures (core::derive()), the
/// scenario's numbers substituted. Its text is selectable; Copy puts it on the clipboard; Esc closes it. It follows
/// the document: each analysisChanged() derives the same fields again, and a field the new analysis no longer has
/// (an operator gone with a change of model) closes it. The headline and the operator table open one each (F1 or
/// their context menus).
class FormulaPopup : public QWidget
{
    Q_OBJECT
public:
    explicit FormulaPopup(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Derives `fields` (names of core::derivationFields() or their aliases), shows the window and raises it.
    void showFields(const QStringList &fields);
    QStringList fields() const { return m_fields; }
    /// The derivations as shown: each field's title and lines, a blank line between fields.
    QString text() const;
    QPlainTextEdit *view() const { return m_text; }
    QPushButton *copyButton() const { return m_copy; }

public slots:
    /// Derives the fields again from the document (closes when one is gone; shows the document's error instead of a
    /// derivation when the scenario cannot be analysed).
    void refresh();
    void copyToClipboard() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    ScenarioDocument *m_doc;
    QStringList m_fields;
    QPlainTextEdit *m_text;
    QPushButton *m_copy;
};

} // namespace memwall::ui
