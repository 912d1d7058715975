#pragma once

#include <QWidget>

class QAction;
class QLineEdit;
class QTimer;
class QSortFilterProxyModel;
class QTableView;

namespace memwall::ui {

class OperatorTableModel;
class ScenarioDocument;

/// The operator table: filter line, sortable view, "Copy as CSV" (Ctrl+C, context menu). The selected row and the
/// document's selected operator follow each other both ways (through the sort/filter proxy).
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

    /// The rows as shown (filtered, sorted) as CSV with exact values.
    QString visibleCsv() const;

public slots:
    /// Puts visibleCsv() on the clipboard.
    void copyCsv();

private:
    void selectFromDocument(int sourceRow);
    /// Fits the columns (but Name, which stretches) to header and cells; `exact` false only widens.
    void fitColumns(bool exact);

    ScenarioDocument *m_doc;
    OperatorTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_view;
    QAction *m_copy;
    QTimer *m_fitTimer;
    bool m_syncing = false;
};

} // namespace memwall::ui
