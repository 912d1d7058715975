#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include <vector>

namespace memwall::ui {

class ScenarioDocument;

/// The document's operators as a table: name, class, count, FLOPs, bytes, FLOP/byte, time, share of time, bound.
/// DisplayRole is SI-formatted ("13.4 GB"); SortRole (Qt::UserRole) and the tooltip hold the exact value.
/// Follows analysisChanged(): same rows are updated with dataChanged(), a different operator count resets.
class OperatorTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Class, Count, Flops, Bytes, Intensity, Time, Share, Bound, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit OperatorTableModel(ScenarioDocument *doc, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The rows (in the order of `rows`, all rows if empty) as CSV with exact values: a header line, one line each.
    QString csv(const QList<int> &rows = {}) const;

private:
    /// What a cell shows (DisplayRole) and sorts by (SortRole), kept so that a change announces only the cells it
    /// changes and painting does not format the figures again.
    struct Cell
    {
        QString text;
        QVariant exact;
    };
    std::vector<Cell> computeCells() const; ///< row-major, ColumnCount a row
    void refresh();
    ScenarioDocument *m_doc;
    std::vector<Cell> m_cells; ///< rowCount() rows of ColumnCount cells
};

} // namespace memwall::ui
