#pragma once

#include <QWidget>

class QAction;
class QLineEdit;
class QTimer;
class QSortFilterProxyModel;
class QTableView;

namespace memwall::ui {

class FormulaPopup;
class OperatorTableModel;
class ScenarioDocument;

/// The operator table: filter line, sortable view, "Copy as CSV" (Ctrl+C, context menu). The selected row and the
/// document's selected operator follow each other both ways (through the sort/filter proxy). "Show the Formula" (F1,
/// context menu) opens a FormulaPopup with the derivation of the current cell (core/analysis/derivation.h).
class OperatorTable : public QWidget
{
    Q_OBJECT
public:
    explicit OperatorTable(ScenarioDocument *doc, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    OperatorTableModel *model() const { return m_model; }
    QAction *copyCsvAction() const { return m_copy; }
    QAction *formulaAction() const { return m_formulaAction; }
    /// The formula window, once a formula has been shown; else nullptr.
    FormulaPopup *formulaPopup() const { return m_formula; }

    /// The derivation fields of the cell at `proxyIndex` (an index of view()'s model): "op:ffn.up:flops" for a FLOPs
    /// cell; every figure of the operator for its name, class or count; its time and the step's for its share.
    QStringList formulaFields(const QModelIndex &proxyIndex) const;

    /// The rows as shown (filtered, sorted) as CSV with exact values.
    QString visibleCsv() const;

public slots:
    /// Puts visibleCsv() on the clipboard.
    void copyCsv();
    /// Opens (or moves) the formula window to the current cell's derivation; nothing without a current cell.
    void showFormula();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void selectFromDocument(int sourceRow);
    /// Fits the columns to header and cells; `exact` false only widens (and keeps the names' width measured when
    /// the rows changed). Then fitName().
    void fitColumns(bool exact);
    /// The Name column: the width the other columns leave in the view, but at least the names' own width.
    void fitName();

    ScenarioDocument *m_doc;
    OperatorTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_view;
    QAction *m_copy;
    QAction *m_formulaAction;
    FormulaPopup *m_formula = nullptr;
    QTimer *m_fitTimer;
    bool m_syncing = false;
    int m_nameWidth = 0; ///< the widest name and the header's, measured when the rows changed
};

} // namespace memwall::ui
