#include "ui/widgets/operatortablemodel.h"

#include "ui/document/scenariodocument.h"
#include "ui/util/text.h"

#include <QBrush>
#include <QColor>

namespace memwall::ui {

using namespace memwall::core;

OperatorTableModel::OperatorTableModel(ScenarioDocument *doc, QObject *parent) : QAbstractTableModel(parent), m_doc(doc)
{
    m_cells = computeCells();
    connect(doc, &ScenarioDocument::analysisChanged, this, &OperatorTableModel::refresh);
}

std::vector<OperatorTableModel::Cell> OperatorTableModel::computeCells() const
{
    const auto &ops = m_doc->analysis().operators;
    const double total = m_doc->analysis().totals.timeS;
    const bool generate = m_doc->scenario().phase == Phase::Generate;
    std::vector<Cell> cells;
    cells.reserve(ops.size() * ColumnCount);
    for (const Operator &op : ops) {
        const double share = total > 0 ? op.timeS / total : 0.0;
        cells.push_back(
            {generate ? QStringLiteral("%1 (%2)").arg(qs(op.name), qs(toString(op.phase))) : qs(op.name), qs(op.name)});
        cells.push_back({qs(toString(op.cls)), qs(toString(op.cls))});
        cells.push_back({formatExact(op.count), op.count});
        cells.push_back({formatSiNumber(op.flops), op.flops});
        cells.push_back({formatBytes(op.bytes()), op.bytes()});
        // An operator that moves no bytes (an embedding look-up counted elsewhere, a kv write of nothing) has no
        // intensity and nothing to compare with the ridge: "—", not "0.0 FLOP/byte, compute-bound".
        const bool noBytes = !(op.bytes() > 0);
        cells.push_back({noBytes ? QStringLiteral("—") : formatRatio(op.intensity()), op.intensity()});
        cells.push_back({formatSeconds(op.timeS), op.timeS});
        cells.push_back({formatPercent(share), share});
        cells.push_back(
            {noBytes ? QStringLiteral("—") : qs(toString(op.bound)), noBytes ? QString() : qs(toString(op.bound))});
    }
    return cells;
}

void OperatorTableModel::refresh()
{
    std::vector<Cell> cells = computeCells();
    const int rows = static_cast<int>(cells.size() / ColumnCount);
    if (rows != rowCount()) {
        beginResetModel();
        m_cells = std::move(cells);
        endResetModel();
        return;
    }
    // Only the cells that show or sort differently are announced, one range per column: the view repaints those
    // (a slider tick changes the figures, rarely the names, classes, counts or bounds), and the columns' widths
    // follow them (OperatorTable).
    std::swap(m_cells, cells);
    for (int c = 0; c < ColumnCount; ++c) {
        int first = -1, last = -1;
        for (int r = 0; r < rows; ++r) {
            const auto i = static_cast<std::size_t>(r) * ColumnCount + static_cast<std::size_t>(c);
            if (m_cells[i].text != cells[i].text || m_cells[i].exact != cells[i].exact) {
                if (first < 0)
                    first = r;
                last = r;
            }
        }
        if (first >= 0)
            emit dataChanged(index(first, c), index(last, c));
    }
}

int OperatorTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_cells.size() / ColumnCount);
}
int OperatorTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OperatorTableModel::data(const QModelIndex &index, int role) const
{
    const auto &ops = m_doc->analysis().operators;
    if (!index.isValid() || index.row() >= static_cast<int>(ops.size()))
        return {};
    const Operator &op = ops[static_cast<std::size_t>(index.row())];
    const double total = m_doc->analysis().totals.timeS;
    const double share = total > 0 ? op.timeS / total : 0.0;
    const auto cell = static_cast<std::size_t>(index.row()) * ColumnCount + static_cast<std::size_t>(index.column());
    if (cell >= m_cells.size() || index.column() >= ColumnCount)
        return {};

    switch (role) {
    case Qt::DisplayRole: return m_cells[cell].text;
    case SortRole: return m_cells[cell].exact;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Flops: return tr("%1 FLOPs in %2 executions").arg(formatExact(op.flops, 10), formatExact(op.count));
        case Bytes:
            return tr("%1 bytes: weights %2, activations %3, KV cache %4")
                .arg(formatExact(op.bytes(), 10), formatBytes(op.weightBytes), formatBytes(op.activationBytes),
                     formatBytes(op.kvBytes));
        case Intensity:
        case Bound:
            if (!(op.bytes() > 0))
                return tr("This operator moves no bytes from memory: it has no arithmetic intensity, and neither "
                          "compute nor memory bandwidth limits it.");
            if (index.column() == Bound)
                return m_cells[cell].exact.toString();
            return tr("%1 FLOP/byte (ridge %2)")
                .arg(formatExact(op.intensity()), formatExact(m_doc->analysis().ridge, 4));
        case Time: return tr("%1 s, computed in %2").arg(formatExact(op.timeS), qs(toString(op.computeType)));
        case Share: return tr("%1 of the step time").arg(formatPercent(share));
        default: return m_cells[cell].exact.toString();
        }
    case Qt::TextAlignmentRole:
        return index.column() >= Count && index.column() <= Share ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Bound && op.bytes() > 0)
            return QBrush(op.bound == core::Bound::Compute ? QColor(0x00, 0x72, 0xB2) : QColor(0xD5, 0x5E, 0x00));
        return {};
    default: return {};
    }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Name: return tr("Operator");
        case Class: return tr("Class");
        case Count: return tr("Count");
        case Flops: return tr("FLOPs");
        case Bytes: return tr("Bytes");
        case Intensity: return tr("FLOP/byte");
        case Time: return tr("Time");
        case Share: return tr("Share");
        case Bound: return tr("Bound");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Name: return tr("Stable dotted operator name, as in `memwall analyze`.");
        case Class: return tr("Matmul, attention, normalization, element-wise or communication.");
        case Count: return tr("Executions on one device's critical path (layers × passes).");
        case Flops: return tr("Floating-point operations over all executions (2 per multiply-accumulate).");
        case Bytes: return tr("Main-memory traffic over all executions: weights, activations and KV cache.");
        case Intensity: return tr("Arithmetic intensity: FLOPs per byte moved; left of the ridge means memory-bound.");
        case Time: return tr("Roofline time over all executions: max(FLOPs / peak, bytes / bandwidth).");
        case Share: return tr("This operator's share of the whole step time (communication included in the whole).");
        case Bound: return tr("Whether compute or memory bandwidth limits this operator.");
        }
    }
    return {};
}

QString OperatorTableModel::csv(const QList<int> &rows) const
{
    QString out = QStringLiteral("name,class,phase,count,flops,bytes,arithmetic_intensity,time_s,share,bound\n");
    const auto &ops = m_doc->analysis().operators;
    const double total = m_doc->analysis().totals.timeS;
    QList<int> order = rows;
    if (order.isEmpty())
        for (int r = 0; r < static_cast<int>(ops.size()); ++r)
            order << r;
    for (int r : order) {
        if (r < 0 || r >= static_cast<int>(ops.size()))
            continue;
        const Operator &op = ops[static_cast<std::size_t>(r)];
        out += csvRow({qs(op.name), qs(toString(op.cls)), qs(toString(op.phase)), csvNumber(op.count),
                       csvNumber(op.flops), csvNumber(op.bytes()), csvNumber(op.intensity()), csvNumber(op.timeS),
                       csvNumber(total > 0 ? op.timeS / total : 0.0), qs(toString(op.bound))});
    }
    return out;
}

} // namespace memwall::ui
