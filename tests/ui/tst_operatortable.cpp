// The operator table mirrors the document's operators, sorts by exact values, keeps its selection in step with the
// document's selected operator through the sort/filter proxy, and copies exact CSV.
#include "core/analysis/derivation.h"
#include "ui/document/scenariodocument.h"
#include "ui/mainwindow.h"
#include "ui/settings/settingsfile.h"
#include "ui/util/text.h"
#include "ui/widgets/formulapopup.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/operatortable.h"
#include "ui/widgets/operatortablemodel.h"
#include "ui/widgets/steadylabel.h"
#include "ui/widgets/textcelldelegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QtTest>

#include <memory>

using namespace memwall;
using memwall::ui::OperatorTable;
using memwall::ui::OperatorTableModel;
using memwall::ui::ScenarioDocument;

class TstOperatorTable : public QObject
{
    Q_OBJECT

private:
    std::shared_ptr<core::PresetLibrary> m_lib;
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<OperatorTable> m_table;

    int sourceRowOf(const QString &name) const
    {
        const auto &ops = m_doc->analysis().operators;
        for (std::size_t i = 0; i < ops.size(); ++i)
            if (QString::fromUtf8(ops[i].name.data(), static_cast<qsizetype>(ops[i].name.size())) == name)
                return static_cast<int>(i);
        return -1;
    }

private slots:
    void initTestCase()
    {
        // formulaInTheMainWindow makes a window, which saves its settings: to a test location, never the user's.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MemWallTest");
        ui::useCheckedSettings();
        m_lib = std::make_shared<core::PresetLibrary>();
        m_lib->loadBuiltin();
    }
    void init()
    {
        m_doc = std::make_unique<ScenarioDocument>(m_lib);
        m_table = std::make_unique<OperatorTable>(m_doc.get());
        m_table->resize(900, 400);
    }
    void cleanup()
    {
        m_table.reset();
        m_doc.reset();
    }

    void cellsPaintAsTheStyleDoes_data()
    {
        // Figures are set glyph by glyph, other text by the shaper: both must paint what QStyledItemDelegate paints.
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("alignment");
        const int right = Qt::AlignRight | Qt::AlignVCenter, left = Qt::AlignLeft | Qt::AlignVCenter;
        QTest::newRow("bytes") << QStringLiteral("14.2 GB") << right;
        QTest::newRow("microseconds") << QStringLiteral("2.5 \u00b5s") << right;
        QTest::newRow("percent") << QStringLiteral("0.2 %") << right;
        QTest::newRow("exponent") << QStringLiteral("1.2e+05") << right;
        QTest::newRow("name (shaped)") << QStringLiteral("attn.qkv_proj") << left;
        QTest::newRow("figure, left") << QStringLiteral("80") << left;
    }
    void cellsPaintAsTheStyleDoes()
    {
        QFETCH(QString, text);
        QFETCH(int, alignment);
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0), text);
        model.setData(model.index(0, 0), alignment, Qt::TextAlignmentRole);
        QTableView view;
        view.setModel(&model);
        auto paint = [&](const QStyledItemDelegate &delegate) {
            QImage image(160, 24, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::white);
            QPainter painter(&image);
            QStyleOptionViewItem option;
            option.initFrom(&view);
            option.rect = image.rect();
            option.state |= QStyle::State_Enabled;
            delegate.paint(&painter, option, model.index(0, 0));
            return image;
        };
        const ui::TextCellDelegate fast;
        const QStyledItemDelegate reference;
        const QImage painted = paint(fast), expected = paint(reference);
        int differing = 0, inked = 0;
        for (int y = 0; y < expected.height(); ++y)
            for (int x = 0; x < expected.width(); ++x) {
                differing += painted.pixel(x, y) != expected.pixel(x, y);
                inked += expected.pixel(x, y) != qRgb(255, 255, 255);
            }
        QVERIFY2(inked > 20, "the reference painted no text");
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 of %2 inked pixels differ").arg(differing).arg(inked)));
        // Painted again from the delegate's cache: the same.
        QCOMPARE(paint(fast), painted);
    }

    void steadyLabelsPaintAsTheStyleDoes_data()
    {
        // SteadyLabel keeps its text laid out between paints; what it paints must be QStyle::drawItemText()'s.
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("wrap");
        QTest::addColumn<QSize>("size");
        const QString sentence =
            QStringLiteral("Llama 2 70B holds 310 GB per device (172 GB of it KV cache) but the device holds 80 GB: "
                           "it does not fit, so shorten the context, lower the batch or quantize the KV cache.");
        QTest::newRow("figure") << QStringLiteral("96.9 ms") << false << QSize(120, 30);
        QTest::newRow("caption") << QStringLiteral("per token (per decode step)") << false << QSize(220, 18);
        QTest::newRow("wrapped, two lines") << sentence << true << QSize(600, 44);
        QTest::newRow("wrapped, cut short") << sentence << true << QSize(300, 30);
        QTest::newRow("line break") << QStringLiteral("310 GB\nof 80 GB") << true << QSize(200, 50);
    }
    void steadyLabelsPaintAsTheStyleDoes()
    {
        QFETCH(QString, text);
        QFETCH(bool, wrap);
        QFETCH(QSize, size);
        ui::SteadyLabel label;
        label.setWordWrap(wrap);
        label.setText(text);
        label.resize(size);
        label.heightForWidth(size.width()); // laid out at another width first: the paint must not reuse it
        label.heightForWidth(size.width() / 2);
        const QImage painted = label.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QImage expected(painted.size(), QImage::Format_RGB32);
        expected.fill(label.palette().color(QPalette::Window));
        {
            QPainter p(&expected);
            p.setFont(label.font());
            label.style()->drawItemText(&p, QRect(QPoint(0, 0), size),
                                        Qt::AlignLeft | Qt::AlignVCenter | (wrap ? Qt::TextWordWrap : 0),
                                        label.palette(), true, text, QPalette::WindowText);
        }
        int differing = 0, inked = 0;
        for (int y = 0; y < expected.height(); ++y)
            for (int x = 0; x < expected.width(); ++x) {
                differing += painted.pixel(x, y) != expected.pixel(x, y);
                inked += expected.pixel(x, y) != expected.pixel(0, 0);
            }
        QVERIFY2(inked > 20, "the reference painted no text");
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 of %2 inked pixels differ").arg(differing).arg(inked)));
        // and the height it asks for is what the style measures
        if (wrap) {
            const QFontMetrics fm = label.fontMetrics();
            const int styled = fm.boundingRect(QRect(0, 0, size.width(), 100000),
                                               Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, text)
                                   .height();
            QCOMPARE(label.heightForWidth(size.width()), std::max(styled, fm.height()));
        }
    }

    void rowsAreOperators_data()
    {
        QTest::addColumn<int>("phase");
        QTest::newRow("decode") << static_cast<int>(core::Phase::Decode);
        QTest::newRow("generate (prefill + decode operators)") << static_cast<int>(core::Phase::Generate);
        QTest::newRow("train (with optimizer step)") << static_cast<int>(core::Phase::Train);
    }
    void rowsAreOperators()
    {
        QFETCH(int, phase);
        core::Scenario s = m_doc->scenario();
        s.phase = static_cast<core::Phase>(phase);
        m_doc->setScenario(s, "phase");
        const auto &ops = m_doc->analysis().operators;
        QCOMPARE(m_table->model()->rowCount(), static_cast<int>(ops.size()));
        QCOMPARE(m_table->proxy()->rowCount(), static_cast<int>(ops.size()));
        for (int r = 0; r < m_table->model()->rowCount(); ++r) {
            const auto &op = ops[static_cast<std::size_t>(r)];
            QCOMPARE(m_table->model()->index(r, OperatorTableModel::Time).data(OperatorTableModel::SortRole).toDouble(),
                     op.timeS);
            QCOMPARE(
                m_table->model()->index(r, OperatorTableModel::Flops).data(OperatorTableModel::SortRole).toDouble(),
                op.flops);
        }
    }

    void displayIsSiFormatted()
    {
        const int row = sourceRowOf("attn.qkv_proj");
        QVERIFY(row >= 0);
        // Llama 2 70B decode: the QKV projection moves 13.4 GB over its 80 layers.
        QCOMPARE(m_table->model()->index(row, OperatorTableModel::Bytes).data().toString(), QStringLiteral("13.4 GB"));
        QCOMPARE(m_table->model()->index(row, OperatorTableModel::Bound).data().toString(), QStringLiteral("memory"));
        QVERIFY(m_table->model()
                    ->index(row, OperatorTableModel::Bytes)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("weights"));
    }

    void updatesInPlaceOnSliderTicks()
    {
        // In place, and only the cells that change are announced (the view repaints those): every cell whose text
        // changed lies in an announced range, and the operator names, which a batch does not change, in none.
        QAbstractItemModel *model = m_table->model();
        auto texts = [model] {
            QStringList all;
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < model->columnCount(); ++c)
                    all << model->index(r, c).data().toString();
            return all;
        };
        const QStringList before = texts();
        QSignalSpy resets(model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(model, &QAbstractItemModel::dataChanged);
        core::Scenario s = m_doc->scenario();
        s.batch = 8;
        m_doc->setScenario(s, "batch", ScenarioDocument::BatchKey);
        QCOMPARE(resets.count(), 0);
        QVERIFY(changes.count() >= 1);
        const QStringList after = texts();
        QCOMPARE(after.size(), before.size());
        auto announced = [&changes](int row, int column) {
            for (const QList<QVariant> &args : changes) {
                const auto from = args[0].value<QModelIndex>(), to = args[1].value<QModelIndex>();
                if (row >= from.row() && row <= to.row() && column >= from.column() && column <= to.column())
                    return true;
            }
            return false;
        };
        int changed = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            QVERIFY(!announced(r, OperatorTableModel::Name));
            for (int c = 0; c < model->columnCount(); ++c)
                if (after[r * model->columnCount() + c] != before[r * model->columnCount() + c]) {
                    ++changed;
                    QVERIFY2(announced(r, c), qPrintable(QString("row %1, column %2").arg(r).arg(c)));
                }
        }
        QVERIFY(changed > 0);
    }

    // What the view shows (through the sort/filter proxy, sorted by time) after a slider tick is the new analysis's
    // figures, row by row (issue #41: the tick's repaint work was cut, nothing it shows may lag).
    void viewShowsTheNewFiguresAfterATick()
    {
        m_table->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_table.get()));
        m_table->view()->sortByColumn(OperatorTableModel::Time, Qt::DescendingOrder);
        for (int64_t batch : {7, 300, 4096}) {
            core::Scenario s = m_doc->scenario();
            s.batch = batch;
            m_doc->setScenario(s, "batch", ScenarioDocument::BatchKey);
            QApplication::processEvents();
            const auto &ops = m_doc->analysis().operators;
            const QAbstractItemModel *shown = m_table->view()->model();
            QCOMPARE(shown->rowCount(), static_cast<int>(ops.size()));
            for (int r = 0; r < shown->rowCount(); ++r) {
                const int source = sourceRowOf(
                    shown->index(r, OperatorTableModel::Name).data(OperatorTableModel::SortRole).toString());
                QVERIFY(source >= 0);
                const core::Operator &op = ops[static_cast<std::size_t>(source)];
                QCOMPARE(shown->index(r, OperatorTableModel::Time).data().toString(), ui::formatSeconds(op.timeS));
                QCOMPARE(shown->index(r, OperatorTableModel::Flops).data().toString(), ui::formatSiNumber(op.flops));
                QCOMPARE(shown->index(r, OperatorTableModel::Bytes).data().toString(), ui::formatBytes(op.bytes()));
                if (r > 0) // still in the order of the new times
                    QVERIFY(
                        shown->index(r - 1, OperatorTableModel::Time).data(OperatorTableModel::SortRole).toDouble() >=
                        op.timeS);
            }
        }
    }

    void sortsByExactTime()
    {
        m_table->view()->sortByColumn(OperatorTableModel::Time, Qt::DescendingOrder);
        QSortFilterProxyModel *proxy = m_table->proxy();
        double previous = 1e300;
        for (int r = 0; r < proxy->rowCount(); ++r) {
            const double t = proxy->index(r, OperatorTableModel::Time).data(OperatorTableModel::SortRole).toDouble();
            QVERIFY2(t <= previous, qPrintable(QString("row %1").arg(r)));
            previous = t;
        }
        // The slowest operators of 70B decode are the three FFN matmuls.
        QVERIFY(proxy->index(0, OperatorTableModel::Name).data().toString().startsWith("ffn."));
    }

    void selectingARowSelectsTheOperator()
    {
        m_table->view()->sortByColumn(OperatorTableModel::Time, Qt::AscendingOrder); // proxy order != source order
        QSignalSpy spy(m_doc.get(), &ScenarioDocument::selectionChanged);
        const int proxyRow = m_table->proxy()->rowCount() - 1; // the slowest
        const QModelIndex cell = m_table->proxy()->index(proxyRow, OperatorTableModel::Name);
        m_table->view()->scrollTo(cell);
        QTest::mouseClick(m_table->view()->viewport(), Qt::LeftButton, {}, m_table->view()->visualRect(cell).center());
        const int expected = m_table->proxy()->mapToSource(cell).row();
        QCOMPARE(m_doc->selectedOperator(), expected);
        QCOMPARE(spy.count(), 1);
        QVERIFY(m_doc->analysis().operators[static_cast<std::size_t>(expected)].name.substr(0, 4) == "ffn.");
    }

    void documentSelectionSelectsTheRow()
    {
        m_table->view()->sortByColumn(OperatorTableModel::Bytes, Qt::DescendingOrder);
        const int source = sourceRowOf("attn.softmax");
        m_doc->setSelectedOperator(source);
        const QModelIndex current = m_table->view()->selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(m_table->proxy()->mapToSource(current).row(), source);
        QCOMPARE(m_table->view()->selectionModel()->selectedRows().size(), 1);
        // No echo back into the document.
        QCOMPARE(m_doc->selectedOperator(), source);
        m_doc->setSelectedOperator(-1);
        QVERIFY(m_table->view()->selectionModel()->selectedRows().isEmpty());
    }

    void filterKeepsMappingRight()
    {
        QTest::keyClicks(m_table->filterEdit(), "ffn.");
        QVERIFY(m_table->proxy()->rowCount() >= 4);
        QVERIFY(m_table->proxy()->rowCount() < m_table->model()->rowCount());
        const int source = sourceRowOf("ffn.down");
        m_doc->setSelectedOperator(source);
        QCOMPARE(m_table->proxy()->mapToSource(m_table->view()->selectionModel()->currentIndex()).row(), source);
    }

    void filteringNeverChangesTheSelectedOperator()
    {
        // Found by tst_torture: hiding the selected row moved the view's current row to a neighbour, and that
        // neighbour became the document's (and every chart's) selected operator.
        const int source = sourceRowOf("attn.softmax");
        m_doc->setSelectedOperator(source);
        QSignalSpy spy(m_doc.get(), &ScenarioDocument::selectionChanged);
        m_table->filterEdit()->setText("ffn.");
        QCOMPARE(m_doc->selectedOperator(), source);
        QVERIFY(m_table->view()->selectionModel()->selectedRows().isEmpty());
        // A selection made elsewhere (a chart) while the row is hidden shows once the filter lets the row in again.
        m_doc->setSelectedOperator(sourceRowOf("attn.score"));
        m_table->filterEdit()->setText("attn");
        QCOMPARE(m_doc->selectedOperator(), sourceRowOf("attn.score"));
        const QModelIndexList rows = m_table->view()->selectionModel()->selectedRows();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(m_table->proxy()->mapToSource(rows.front()).row(), sourceRowOf("attn.score"));
        QCOMPARE(spy.count(), 1); // only the one change made through the document
        m_table->filterEdit()->clear();
        QCOMPARE(m_doc->selectedOperator(), sourceRowOf("attn.score"));
    }

    void copiesCsv()
    {
        QApplication::clipboard()->clear();
        m_table->view()->setFocus();
        m_table->copyCsvAction()->trigger();
        const QStringList lines = QApplication::clipboard()->text().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + static_cast<int>(m_doc->analysis().operators.size()));
        QCOMPARE(lines.front(),
                 QStringLiteral("name,class,phase,count,flops,bytes,arithmetic_intensity,time_s,share,bound"));
        QCOMPARE(m_table->copyCsvAction()->shortcut(), QKeySequence(QKeySequence::Copy));
        // Exact values: the row of lm_head carries its full-precision time.
        const int row = sourceRowOf("lm_head");
        const auto &op = m_doc->analysis().operators[static_cast<std::size_t>(row)];
        bool found = false;
        for (const QString &line : lines)
            if (line.startsWith("lm_head,")) {
                QCOMPARE(line.split(',').at(7).toDouble(), op.timeS);
                found = true;
            }
        QVERIFY(found);
        // Filtered: header plus only the shown rows.
        m_table->filterEdit()->setText("attn.");
        const QStringList filtered = m_table->visibleCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(filtered.size(), 1 + m_table->proxy()->rowCount());
    }

    // "Show the formula": F1 on a cell opens the derivation of its figure (core::derive()), which follows the
    // document. The default document: Llama 2 70B decode at batch 1 and context 2048 on an H100 SXM.
    void f1OnACellShowsItsFormula_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("substituted");  // at batch 1, counted by hand
        QTest::addColumn<QString>("substituted8"); // at batch 8
        QTest::newRow("ffn.up FLOPs: 2 x 1 x 8192 x 28672 = 469,762,048 per layer")
            << int(OperatorTableModel::Flops) << "op:ffn.up:flops"
            << "= 2 × 1 × 8192 × 28\u202f672 = 469\u202f762\u202f048"
            << "= 2 × 8 × 8192 × 28\u202f672 = 3\u202f758\u202f096\u202f384";
        QTest::newRow("ffn.up bytes: 469,762,048 B of weights and 73,728 B of activations per layer")
            << int(OperatorTableModel::Bytes) << "op:ffn.up:bytes"
            << "per execution: 469\u202f762\u202f048 B + 73\u202f728 B + 0 B, × 80 executions"
            << "per execution: 469\u202f762\u202f048 B + 589\u202f824 B + 0 B, × 80 executions";
        QTest::newRow("ffn.up time: 37.59 GB at 3.35 TB/s = 11.22 ms")
            << int(OperatorTableModel::Time) << "op:ffn.up:time"
            << "= max(37.98 µs, 11.22 ms)"
            << "= max(303.9 µs, 11.23 ms)";
        QTest::newRow("ffn.up bound: memory") << int(OperatorTableModel::Bound) << "op:ffn.up:bound"
                                              << "= memory-bound"
                                              << "= memory-bound";
    }
    void f1OnACellShowsItsFormula()
    {
        QFETCH(int, column);
        QFETCH(QString, field);
        QFETCH(QString, substituted);
        QFETCH(QString, substituted8);
        m_table->show();
        m_table->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_table.get()));
        // Sorted by time, so that the view's row is not the operator's: the formula follows the proxy.
        m_table->view()->sortByColumn(OperatorTableModel::Time, Qt::DescendingOrder);
        const QModelIndex cell =
            m_table->proxy()->mapFromSource(m_table->model()->index(sourceRowOf("ffn.up"), column));
        QVERIFY(cell.isValid());
        QVERIFY(cell.row() != sourceRowOf("ffn.up"));
        // A click makes the cell current (and selects its row in the document, which must leave the column be).
        m_table->view()->scrollTo(cell);
        QTest::mouseClick(m_table->view()->viewport(), Qt::LeftButton, {}, m_table->view()->visualRect(cell).center());
        QCOMPARE(m_doc->selectedOperator(), sourceRowOf("ffn.up"));
        QCOMPARE(m_table->view()->currentIndex(), cell);
        QCOMPARE(m_table->formulaPopup(), nullptr);
        QTest::keyClick(m_table->view(), Qt::Key_F1);
        ui::FormulaPopup *popup = m_table->formulaPopup();
        QVERIFY(popup);
        QVERIFY(popup->isVisible());
        QCOMPARE(popup->fields().value(0), field);
        QVERIFY2(popup->text().contains(substituted), qPrintable(popup->text()));
        // Titled in words (the first line of the derivation), not with the internal key (issue #41, item 13).
        QVERIFY2(!popup->windowTitle().contains(field), qPrintable(popup->windowTitle()));
        QVERIFY(popup->text().startsWith(popup->windowTitle().section(QStringLiteral(": "), 1)));
        // Live: batch 8 derives again, from the new analysis.
        core::Scenario s = m_doc->scenario();
        s.batch = 8;
        m_doc->setScenario(s, "batch");
        QVERIFY(popup->isVisible());
        QVERIFY2(popup->text().contains(substituted8), qPrintable(popup->text()));
        QStringList derived;
        for (const QString &f : popup->fields())
            derived << ui::qs(
                core::derive(m_doc->hardware(), m_doc->model(), m_doc->scenario(), m_doc->analysis(), f.toStdString())
                    .text());
        QCOMPARE(popup->text(), derived.join("\n\n"));
        // Copy puts the whole derivation on the clipboard; Esc closes the window.
        QTest::mouseClick(popup->copyButton(), Qt::LeftButton);
        QCOMPARE(QApplication::clipboard()->text(), popup->text());
        popup->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(popup));
        QTest::keyClick(popup->view(), Qt::Key_Escape);
        QVERIFY(!popup->isVisible());
    }

    void formulaOfANameCellShowsEveryFigureOfTheOperator()
    {
        // The context menu holds the same action, on the current cell (a right-click makes the clicked cell current).
        QVERIFY(m_table->view()->actions().contains(m_table->formulaAction()));
        QCOMPARE(m_table->view()->contextMenuPolicy(), Qt::ActionsContextMenu);
        const QModelIndex name = m_table->proxy()->mapFromSource(m_table->model()->index(sourceRowOf("lm_head"), 0));
        m_table->view()->setCurrentIndex(name);
        m_table->formulaAction()->trigger();
        QVERIFY(m_table->formulaPopup());
        QCOMPARE(m_table->formulaPopup()->fields(),
                 QStringList({"op:lm_head:flops", "op:lm_head:bytes", "op:lm_head:intensity", "op:lm_head:time",
                              "op:lm_head:bound"}));
        // lm_head of the last token: 2 x 1 x 8192 x 32000.
        QVERIFY2(m_table->formulaPopup()->text().contains("= 2 × 1 × 8192 × 32\u202f000 = 524\u202f288\u202f000"),
                 qPrintable(m_table->formulaPopup()->text()));
        // No long number in the window is left unseparated (issue #41: "unseparated 13-digit numbers"): every run of
        // five or more digits is grouped, by commas (the closing line) or narrow spaces (the substituted numbers).
        const QRegularExpression ungrouped(QStringLiteral("(?<![\\d.])\\d{5,}"));
        QVERIFY2(!ungrouped.match(m_table->formulaPopup()->text()).hasMatch(),
                 qPrintable(ungrouped.match(m_table->formulaPopup()->text()).captured()));
        // The window names the figure in words, never by its key ("op:lm_head:flops", "totals.time_s").
        QVERIFY2(!m_table->formulaPopup()->windowTitle().contains(QStringLiteral("op:")),
                 qPrintable(m_table->formulaPopup()->windowTitle()));
        // Without a current cell there is nothing to derive.
        m_table->formulaPopup()->close();
        m_table->view()->setCurrentIndex({});
        m_table->formulaAction()->trigger();
        QVERIFY(!m_table->formulaPopup()->isVisible());
    }

    void formulaClosesWhenItsOperatorIsGone()
    {
        const QModelIndex cell = m_table->proxy()->mapFromSource(
            m_table->model()->index(sourceRowOf("attn.qkv_proj"), OperatorTableModel::Flops));
        m_table->view()->setCurrentIndex(cell);
        m_table->formulaAction()->trigger();
        QVERIFY(m_table->formulaPopup()->isVisible());
        m_doc->setModelById("deepseek-v3"); // MLA: no fused qkv_proj
        QCOMPARE(sourceRowOf("attn.qkv_proj"), -1);
        QVERIFY(!m_table->formulaPopup()->isVisible());
    }

    void f1OnAHeadlineFigureShowsItsFormula()
    {
        ui::HeadlineBar bar(m_doc.get());
        bar.show();
        bar.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&bar));
        auto *throughput = bar.findChild<ui::SteadyLabel *>("headlineThroughput");
        QVERIFY(throughput);
        QVERIFY(throughput->toolTip().contains("F1"));
        throughput->setFocus();
        QCOMPARE(bar.focusedFigure(), int(ui::HeadlineBar::ThroughputFigure));
        QTest::keyClick(throughput, Qt::Key_F1);
        ui::FormulaPopup *popup = bar.formulaPopup();
        QVERIFY(popup);
        QVERIFY(popup->isVisible());
        QCOMPARE(popup->fields(), QStringList{"totals.tokens_per_s"});
        QVERIFY2(popup->text().contains("= batch 1 (one new token per sequence) / "), qPrintable(popup->text()));
        core::Scenario s = m_doc->scenario();
        s.batch = 8;
        m_doc->setScenario(s, "batch");
        QVERIFY2(popup->text().contains("= batch 8 (one new token per sequence) / "), qPrintable(popup->text()));
        // The last line is the headline's figure.
        QVERIFY2(popup->text().endsWith("(" + bar.throughputText() + ")"), qPrintable(popup->text()));
        // The context menu of the memory figure shows the memory's formula, with the KV cache and the weights.
        auto *memory = bar.findChild<ui::SteadyLabel *>("headlineMemory");
        std::unique_ptr<QMenu> menu(bar.createContextMenu(memory->geometry().center()));
        auto *show = menu->findChild<QAction *>("showFormula");
        QVERIFY(show);
        show->trigger();
        QCOMPARE(popup->fields(), ui::HeadlineBar::formulaFields(ui::HeadlineBar::MemoryFigure));
        QVERIFY2(popup->text().contains("memory per device = weights + KV cache + activations"),
                 qPrintable(popup->text()));
        // 2 x 80 x 8 x 128 x 2 B x 2049 tokens x 8 sequences.
        QVERIFY2(popup->text().contains("= 2 × 80 layers × 8 KV heads × 128 × 2 B (fp16) × 2049 tokens (context 2048 + "
                                        "1 new token) × 8 sequences"),
                 qPrintable(popup->text()));
        QVERIFY(popup->text().contains("= 5,371,330,560 B (5.37 GB)"));
        // F1 without a focused figure: the time.
        bar.setFocus();
        QTest::keyClick(&bar, Qt::Key_F1);
        QCOMPARE(popup->fields(), QStringList{"totals.time_s"});
    }

    void formulaInTheMainWindow()
    {
        // In the window, where the charts answer the document's selection too, F1 on a clicked Time cell shows the
        // time's formula. MEMWALL_FORMULA_SCREENSHOT=FILE.png also saves the window with the formula over it after
        // typing batch 64 (not an assertion on pixels: a picture for people to look at).
        m_table.reset();
        ui::MainWindow window(m_doc.get());
        window.resize(1600, 1000);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto *table = window.findChild<OperatorTable *>();
        QVERIFY(table);
        core::Scenario s = m_doc->scenario();
        s.batch = 64;
        m_doc->setScenario(s, "batch");
        const QModelIndex cell =
            table->proxy()->mapFromSource(table->model()->index(sourceRowOf("ffn.up"), OperatorTableModel::Time));
        table->view()->scrollTo(cell);
        QTest::mouseClick(table->view()->viewport(), Qt::LeftButton, {}, table->view()->visualRect(cell).center());
        QTest::keyClick(table->view(), Qt::Key_F1);
        ui::FormulaPopup *popup = table->formulaPopup();
        QVERIFY(popup && popup->isVisible());
        QCOMPARE(popup->fields(), QStringList{"op:ffn.up:time"});
        // 64 tokens: 2 x 64 x 8192 x 28672 FLOPs a layer, still under the 37.59 GB of weights and activations.
        QVERIFY2(popup->text().contains("= max(2.431 ms, 11.33 ms)"), qPrintable(popup->text()));
        const QString out = qEnvironmentVariable("MEMWALL_FORMULA_SCREENSHOT");
        if (out.isEmpty())
            return;
        popup->move(window.geometry().topLeft() + QPoint(500, 300));
        QTest::qWait(300);
        QImage shot = window.grab().toImage();
        QPainter p(&shot);
        const QPixmap pop = popup->grab();
        p.drawPixmap(popup->geometry().topLeft() - window.geometry().topLeft(), pop);
        p.setPen(QPen(Qt::darkGray, 2));
        p.drawRect(QRect(popup->geometry().topLeft() - window.geometry().topLeft(), pop.size()));
        p.end();
        QVERIFY(shot.save(out));
    }

    void headlineShowsTheNumbers()
    {
        ui::HeadlineBar bar(m_doc.get());
        // 70B fp16 on one H100: does not fit, memory-bound, ~41 ms per token.
        QVERIFY(bar.memoryText().contains("does not fit"));
        QVERIFY(bar.memoryText().contains("80 GB"));
        QVERIFY(bar.memoryWarned());
        QVERIFY(bar.boundText().contains("memory-bound"));
        QVERIFY(bar.timeText().contains("ms"));
        QVERIFY(bar.explanationText().contains("does not fit"));
        m_doc->setHardwareById("h200-sxm");
        QVERIFY(bar.explanationText().contains("each token reads all 138 GB of weights"));
        QVERIFY(!bar.memoryText().contains("does not fit"));
        QVERIFY(!bar.memoryWarned());
        // Copy puts the whole headline on the clipboard, a line per figure and the explanation last.
        bar.copyToClipboard();
        const QStringList copied = QApplication::clipboard()->text().split('\n');
        QCOMPARE(copied.size(), 5);
        QCOMPARE(copied.last(), bar.explanationText());
        core::Scenario s = m_doc->scenario();
        s.tp = 3;
        m_doc->setScenario(s, "tp");
        QVERIFY(bar.explanationText().contains("tp 3"));
        // A fitting footprint gives its share of the capacity in whole percent.
        s.tp = 1;
        m_doc->setScenario(s, "tp");
        const core::MemoryFootprint &mem = m_doc->analysis().memory;
        QVERIFY(mem.fits);
        QVERIFY2(bar.memoryText().contains(QStringLiteral("(%1 %)").arg(qRound(100 * mem.total() / mem.capacity))),
                 qPrintable(bar.memoryText()));
        // The largest batch and context need ~10^8 times the capacity: one line says it does not fit (its share once
        // overflowed an int).
        s.batch = core::kMaxTokens;
        s.context = core::kMaxTokens;
        m_doc->setScenario(s, "batch");
        QVERIFY2(m_doc->analysisError().isEmpty(), qPrintable(m_doc->analysisError()));
        QVERIFY(m_doc->analysis().memory.total() / m_doc->analysis().memory.capacity > 1e7);
        QVERIFY2(bar.memoryText().contains("does not fit"), qPrintable(bar.memoryText()));
    }

    // In a narrow window (1024 x 768) the four headline figures were cut ("223 GB of 80 G"): they take a smaller size
    // until they fit, and the full size again when there is room. Widths are read from the labels, not assumed.
    void headlineFiguresFitTheBar()
    {
        QWidget window; // a child, as in the main window: its layout does not hold it at its minimum width
        window.resize(4000, 200);
        ui::HeadlineBar &bar = *new ui::HeadlineBar(m_doc.get(), &window);
        bar.resize(4000, 200);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(bar.figureScale(), 1.45);
        const QStringList names{"headlineTime", "headlineThroughput", "headlineMemory", "headlineBound"};
        const auto need = [&] {
            int w = 0;
            for (const QString &n : names)
                w += std::max(bar.findChild<ui::SteadyLabel *>(n)->sizeHint().width(),
                              bar.findChild<ui::SteadyLabel *>(n + "Caption")->sizeHint().width());
            return w;
        };
        const int full = need();
        // Narrower and narrower: while a smaller size is left, no figure is cut; some width takes a smaller size and
        // fits.
        bool shrankAndFits = false;
        for (int width = full; width > full / 2; width -= 4) {
            bar.resize(width, 200);
            bar.layout()->activate();
            bool cut = false;
            for (const QString &n : names) {
                const auto *value = bar.findChild<ui::SteadyLabel *>(n);
                cut = cut || value->width() < value->sizeHint().width();
            }
            QVERIFY2(!cut || bar.figureScale() == 1.0, qPrintable(QStringLiteral("cut at %1 px").arg(width)));
            shrankAndFits = shrankAndFits || (!cut && bar.figureScale() < 1.45);
        }
        QVERIFY(shrankAndFits);
        bar.resize(4000, 200);
        bar.layout()->activate();
        QCOMPARE(bar.figureScale(), 1.45);
    }

    // The table fills its grid lines instead of letting QTableView stroke them (issue #41): the pixels must be
    // QTableView's own, with the cells' extent ending inside the view, scrolled, selected, and right to left.
    void gridIsQTableViewsGrid_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<bool>("rightToLeft");
        QTest::addColumn<int>("scroll");
        QTest::newRow("rows beyond the view") << QString() << false << 0;
        QTest::newRow("few rows, space below") << QStringLiteral("attn") << false << 0;
        QTest::newRow("scrolled both ways") << QString() << false << 3;
        QTest::newRow("right to left") << QStringLiteral("ffn") << true << 0;
    }
    void gridIsQTableViewsGrid()
    {
        QFETCH(QString, filter);
        QFETCH(bool, rightToLeft);
        QFETCH(int, scroll);
        QTableView *view = m_table->view();
        m_table->setLayoutDirection(rightToLeft ? Qt::RightToLeft : Qt::LeftToRight);
        m_table->resize(500, 300); // narrower than the columns: they scroll sideways
        m_table->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_table.get()));
        m_table->filterEdit()->setText(filter);
        m_doc->setSelectedOperator(sourceRowOf(QStringLiteral("ffn.up")));
        QApplication::processEvents();
        view->verticalScrollBar()->setValue(scroll);
        view->horizontalScrollBar()->setValue(scroll * 40);
        QApplication::processEvents();
        QCOMPARE(view->gridStyle(), Qt::NoPen); // the base class strokes nothing, the table fills the lines
        const QImage filled = view->viewport()->grab().toImage();
        view->setGridStyle(Qt::SolidLine); // QTableView strokes them
        const QImage stroked = view->viewport()->grab().toImage();
        view->setGridStyle(Qt::NoPen);
        QCOMPARE(filled.size(), stroked.size());
        const QRgb grid =
            QColor::fromRgba(static_cast<QRgb>(view->style()->styleHint(QStyle::SH_Table_GridLineColor, nullptr, view)))
                .rgb();
        int differing = 0, lines = 0;
        for (int y = 0; y < filled.height(); ++y)
            for (int x = 0; x < filled.width(); ++x) {
                differing += filled.pixel(x, y) != stroked.pixel(x, y);
                lines += stroked.pixel(x, y) == grid;
            }
        QVERIFY2(lines > filled.height(), "QTableView drew no grid to compare with");
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
    }

    // The Name column takes the room the figures leave, but never less than the names: a narrow table scrolls
    // sideways instead of cutting every name to "…".
    void nameColumnNeverNarrowerThanTheNames()
    {
        auto *view = m_table->findChild<QTableView *>();
        QHeaderView *header = view->horizontalHeader();
        m_table->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_table.get()));
        m_table->resize(1600, 400);
        QApplication::processEvents();
        int sum = 0;
        for (int c = 0; c < OperatorTableModel::ColumnCount; ++c)
            sum += header->sectionSize(c);
        QCOMPARE(sum, view->viewport()->width()); // wide: the name fills what is left
        m_table->resize(300, 400);
        QApplication::processEvents();
        const int names = static_cast<QAbstractItemView *>(view)->sizeHintForColumn(OperatorTableModel::Name);
        QVERIFY2(header->sectionSize(OperatorTableModel::Name) >= names,
                 qPrintable(QStringLiteral("%1 < %2").arg(header->sectionSize(OperatorTableModel::Name)).arg(names)));
        QVERIFY(view->horizontalScrollBar()->maximum() > 0);
    }

    // An achievable time is shown as the band of the validation set (kAchievableBand), the ideal as one figure; the
    // band follows every change of the scenario.
    void headlineShowsTheAchievableBand()
    {
        ui::HeadlineBar bar(m_doc.get());
        core::Scenario s = m_doc->scenario();
        s.efficiency = core::EfficiencyMode::Achievable;
        for (int64_t batch : {1, 64}) {
            s.batch = batch;
            m_doc->setScenario(s, "batch");
            const double t = m_doc->analysis().totals.timeS;
            const QString band = ui::formatSecondsRange(t * core::kAchievableBand.low, t * core::kAchievableBand.high);
            QVERIFY2(bar.timeText().startsWith(band + ' '), qPrintable(bar.timeText() + " / " + band));
            QVERIFY(band.contains(QChar(0x2013)));
        }
        s.efficiency = core::EfficiencyMode::Ideal;
        m_doc->setScenario(s, "efficiency");
        QVERIFY(bar.timeText().startsWith(ui::formatSeconds(m_doc->analysis().totals.timeS) + ' '));
        QVERIFY(!bar.timeText().contains(QChar(0x2013)));
        // The RTX 4090's preset has no microbenchmarks: its achievable time is the ideal's, one figure, and the
        // tooltip says why.
        s.efficiency = core::EfficiencyMode::Achievable;
        m_doc->setScenario(s, "efficiency");
        m_doc->setHardwareById("rtx-4090");
        QVERIFY(m_doc->hardware().achievable.empty());
        QVERIFY(bar.timeText().startsWith(ui::formatSeconds(m_doc->analysis().totals.timeS) + ' '));
        QVERIFY(!bar.timeText().contains(QChar(0x2013)));
        QVERIFY2(bar.timeToolTip().contains("No published microbenchmarks"), qPrintable(bar.timeToolTip()));
    }
};

QTEST_MAIN(TstOperatorTable)
#include "tst_operatortable.moc"
