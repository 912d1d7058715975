#include "ui/widgets/operatortable.h"

#include "core/analysis/derivation.h"
#include "ui/document/scenariodocument.h"
#include "ui/util/stripfill.h"
#include "ui/util/text.h"
#include "ui/widgets/formulapopup.h"
#include "ui/widgets/operatortablemodel.h"
#include "ui/widgets/textcelldelegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPaintEvent>
#include <QPainter>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace memwall::ui {

namespace {
/// A table view that fills its grid lines as one-pixel rectangles, where QTableView strokes them with the raster
/// engine's cosmetic stroker pixel by pixel: about a quarter of the operator table's repaint on a slider tick
/// (callgrind, issue #41). The lines are QTableView's: the same places (the bottom of each row and
/// the trailing edge of each column, across the repainted rectangle within the cells' extent; Qt 6.4 draws no
/// leading line for the hidden row header here), the style's grid colour, painted after the cells
/// (tst_operatortable::gridIsQTableViewsGrid compares the pixels). The base class still lays the cells out
/// with the grid's gaps: the grid style is Qt::NoPen, which strokes nothing. Any other grid style is left to Qt.
class FilledGridView : public QTableView
{
public:
    explicit FilledGridView(QWidget *parent) : QTableView(parent) { setGridStyle(Qt::NoPen); }

protected:
    void paintEvent(QPaintEvent *event) override
    {
        QTableView::paintEvent(event);
        if (!showGrid() || gridStyle() != Qt::NoPen)
            return;
        QStyleOptionViewItem option;
        initViewItemOption(&option);
        const auto rgba = static_cast<QRgb>(style()->styleHint(QStyle::SH_Table_GridLineColor, &option, this));
        QPainter painter(viewport());
        for (const QRect &dirty : event->region())
            fillGrid(painter, dirty, QColor::fromRgba(rgba));
    }

private:
    void fillGrid(QPainter &painter, QRect dirty, const QColor &color) const
    {
        const QHeaderView *across = horizontalHeader(), *down = verticalHeader();
        const bool rtl = isRightToLeft();
        // Only where there are cells.
        const int width = across->length() - across->offset() - (rtl ? 0 : 1);
        dirty.setBottom(std::min(dirty.bottom(), down->length() - down->offset() - 1));
        if (rtl)
            dirty.setLeft(std::max(dirty.left(), viewport()->width() - width));
        else
            dirty.setRight(std::min(dirty.right(), width));
        if (!dirty.isValid())
            return;
        int left = across->visualIndexAt(dirty.left()), right = across->visualIndexAt(dirty.right());
        if (rtl)
            std::swap(left, right);
        left = left < 0 ? 0 : left;
        right = right < 0 ? across->count() - 1 : right;
        int bottom = down->visualIndexAt(dirty.bottom());
        bottom = bottom < 0 ? down->count() - 1 : bottom;
        const int top = down->visualIndexAt(dirty.top());
        if (top < 0 || top > bottom)
            return;
        while (bottom > 0 && down->isSectionHidden(down->logicalIndex(bottom)))
            --bottom;
        for (int v = top; v <= bottom; ++v) {
            const int row = down->logicalIndex(v);
            if (!down->isSectionHidden(row))
                painter.fillRect(QRect(dirty.left(), rowViewportPosition(row) + rowHeight(row) - 1, dirty.width(), 1),
                                 color);
        }
        for (int h = left; h <= right; ++h) {
            const int column = across->logicalIndex(h);
            if (across->isSectionHidden(column))
                continue;
            const int x = columnViewportPosition(column) + (rtl ? 0 : columnWidth(column) - 1);
            painter.fillRect(QRect(x, dirty.top(), 1, dirty.height()), color);
        }
    }
};
} // namespace

OperatorTable::OperatorTable(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_model(new OperatorTableModel(doc, this)), m_proxy(new QSortFilterProxyModel(this)),
      m_filter(new QLineEdit(this)), m_view(new FilledGridView(this)), m_copy(new QAction(tr("Copy as CSV"), this)),
      m_formulaAction(new QAction(tr("Show the &Formula"), this)), m_fitTimer(new QTimer(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OperatorTableModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setDynamicSortFilter(true);

    m_filter->setPlaceholderText(tr("Filter operators (name, class, bound)…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Shows only the operators whose name, class or bound contains this text."));
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    // Rows the filter hides (or a changed analysis re-filters) move the view's current index to a neighbour; that is
    // not the user choosing another operator. These two run before the view's own handlers (connected first), so
    // the move does not reach the document; the document's selection is shown again once the rows have settled.
    connect(m_proxy, &QAbstractItemModel::rowsAboutToBeRemoved, this, [this] { m_syncing = true; });
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, [this] { m_syncing = false; });
    m_view->setModel(m_proxy);
    m_view->setObjectName("operatorTable");
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // model order (the order the layer runs) until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setItemDelegate(new TextCellDelegate(m_view));
    StripFill::install(m_view->viewport());
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    // Columns fit their contents when the rows change and widen (never narrow) once a drag pauses: fitting them
    // on every slider tick (ResizeToContents) would measure every cell each time. The user may resize them.
    // The name takes the room the figures leave, but never less than the names need: in a narrow window the table
    // scrolls sideways rather than cutting every name to "…" (fitName()).
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->viewport()->installEventFilter(this);
    m_fitTimer->setSingleShot(true);
    m_fitTimer->setInterval(250);
    connect(m_fitTimer, &QTimer::timeout, this, [this] { fitColumns(false); });
    connect(m_model, &QAbstractItemModel::dataChanged, m_fitTimer, qOverload<>(&QTimer::start));
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { fitColumns(true); });
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->setToolTip(tr("Every operator of one step on one device; click a header to sort, a row to highlight it in "
                          "the charts. F1 or right-click on a cell: show its formula."));

    m_copy->setShortcut(QKeySequence::Copy);
    m_copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_copy->setToolTip(tr("Copies the rows shown, with exact values, as CSV."));
    connect(m_copy, &QAction::triggered, this, &OperatorTable::copyCsv);
    m_view->addAction(m_copy);
    addAction(m_copy);

    m_formulaAction->setObjectName("showFormula");
    m_formulaAction->setShortcut(QKeySequence::HelpContents);
    m_formulaAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_formulaAction->setToolTip(tr("How the current cell's figure was computed, with this scenario's numbers (F1)."));
    m_formulaAction->setStatusTip(m_formulaAction->toolTip());
    connect(m_formulaAction, &QAction::triggered, this, &OperatorTable::showFormula);
    m_view->addAction(m_formulaAction);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (m_syncing)
                    return;
                const QModelIndex source = m_proxy->mapToSource(current);
                m_doc->setSelectedOperator(source.isValid() ? source.row() : -1);
            });
    connect(doc, &ScenarioDocument::selectionChanged, this, &OperatorTable::selectFromDocument);
    // A reset (different operator count) clears the view's selection: put the document's back.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { selectFromDocument(m_doc->selectedOperator()); });
    // A row shown again by the filter (or hidden) after the view has updated: select the document's operator if shown.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
            [this] { selectFromDocument(m_doc->selectedOperator()); });
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, [this] { selectFromDocument(m_doc->selectedOperator()); });
    selectFromDocument(doc->selectedOperator());
    fitColumns(true);
}

void OperatorTable::fitColumns(bool exact)
{
    QHeaderView *header = m_view->horizontalHeader();
    for (int c = 0; c < OperatorTableModel::ColumnCount; ++c) {
        if (c == OperatorTableModel::Name)
            continue;
        const int want =
            std::max(static_cast<QAbstractItemView *>(m_view)->sizeHintForColumn(c), header->sectionSizeHint(c));
        if (exact ? header->sectionSize(c) != want : header->sectionSize(c) < want)
            header->resizeSection(c, want);
    }
    if (exact)
        m_nameWidth = std::max(static_cast<QAbstractItemView *>(m_view)->sizeHintForColumn(OperatorTableModel::Name),
                               header->sectionSizeHint(OperatorTableModel::Name));
    fitName();
}

void OperatorTable::fitName()
{
    QHeaderView *header = m_view->horizontalHeader();
    int others = 0;
    for (int c = 0; c < OperatorTableModel::ColumnCount; ++c)
        others += c == OperatorTableModel::Name ? 0 : header->sectionSize(c);
    const int want = std::max(m_nameWidth, m_view->viewport()->width() - others);
    if (header->sectionSize(OperatorTableModel::Name) != want)
        header->resizeSection(OperatorTableModel::Name, want);
}

bool OperatorTable::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitName();
    return QWidget::eventFilter(watched, event);
}

void OperatorTable::selectFromDocument(int sourceRow)
{
    const QScopedValueRollback<bool> syncing(m_syncing, true);
    // The row's cell in the current column: a click on a row's Time cell leaves that cell current (its formula is
    // the time's), though the document's selection, which answers the click, names only the row.
    const int column = std::max(0, m_view->currentIndex().column());
    const QModelIndex proxyIndex =
        sourceRow >= 0 ? m_proxy->mapFromSource(m_model->index(sourceRow, column)) : QModelIndex();
    if (proxyIndex.isValid()) {
        m_view->selectionModel()->setCurrentIndex(proxyIndex,
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(proxyIndex);
    } else {
        m_view->selectionModel()->clearSelection();
        m_view->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    }
}

QString OperatorTable::visibleCsv() const
{
    QList<int> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows << m_proxy->mapToSource(m_proxy->index(r, 0)).row();
    if (rows.isEmpty())
        return m_model->csv({-1}); // header only
    return m_model->csv(rows);
}

void OperatorTable::copyCsv() { QApplication::clipboard()->setText(visibleCsv()); }

QStringList OperatorTable::formulaFields(const QModelIndex &proxyIndex) const
{
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    const core::Analysis &a = m_doc->analysis();
    if (!source.isValid() || source.row() >= static_cast<int>(a.operators.size()))
        return {};
    const QString op = QStringLiteral("op:") + qs(core::operatorKey(a, static_cast<std::size_t>(source.row())));
    const auto field = [&op](const char *what) { return op + QLatin1Char(':') + QLatin1String(what); };
    switch (source.column()) {
    case OperatorTableModel::Flops: return {field("flops")};
    case OperatorTableModel::Bytes: return {field("bytes")};
    case OperatorTableModel::Intensity: return {field("intensity")};
    case OperatorTableModel::Time: return {field("time")};
    case OperatorTableModel::Share: return {field("time"), QStringLiteral("totals.time_s")};
    case OperatorTableModel::Bound: return {field("bound"), field("time")};
    default: return {field("flops"), field("bytes"), field("intensity"), field("time"), field("bound")};
    }
}

void OperatorTable::showFormula()
{
    const QStringList fields = formulaFields(m_view->currentIndex());
    if (fields.isEmpty())
        return;
    if (!m_formula)
        m_formula = new FormulaPopup(m_doc, this);
    m_formula->showFields(fields);
}

} // namespace memwall::ui
