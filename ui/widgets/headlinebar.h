#pragma once

#include "core/analysis/scenario.h"

#include <QColor>
#include <QFrame>

class QGridLayout;
class QMenu;

namespace memwall::ui {

class FormulaPopup;
class ScenarioDocument;
class SteadyLabel;

/// The headline above the charts: time for the phase (ms/token for decode, TTFT/TPOT for generate, per step for
/// training), tokens/s, memory used of capacity (in the warning colour when it does not fit), what bounds the run,
/// and one generated sentence saying why (core::explain). Shows the document's analysisError() when there is one.
///
/// Every figure is a plain-text value over a plain-text caption in SteadyLabels: a slider tick repaints the figures
/// without re-laying out the window (which would repaint every dock) or parsing rich text (see memwall-bench).
/// The context menu (and Ctrl+C while it has focus) copies the whole headline as text. "Show the Formula" in the
/// context menu of a figure, or F1 while a figure has focus (click it, or Tab to it), opens a FormulaPopup with its
/// derivation (core/analysis/derivation.h).
class HeadlineBar : public QFrame
{
    Q_OBJECT
public:
    /// The figures, left to right.
    enum FigureId { TimeFigure, ThroughputFigure, MemoryFigure, BoundFigure, FigureCount };

    explicit HeadlineBar(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// The derivation fields a figure's formula shows (core::derivationFields() names): time (in generate, as the
    /// figure reads, TTFT and TPOT first), tokens/s, memory with its KV cache and weights, bound with the step's
    /// intensity and the ridge.
    static QStringList formulaFields(FigureId figure, core::Phase phase = core::Phase::Decode);
    /// The figure whose value or caption has focus, or -1.
    int focusedFigure() const;
    /// The figure drawn at `pos` (in this widget's coordinates), or -1.
    int figureAt(const QPoint &pos) const;
    /// The context menu at `pos`: "Show the Formula" of the figure there (the time's elsewhere), and Copy Headline.
    /// The caller owns it.
    QMenu *createContextMenu(const QPoint &pos);
    /// The formula window, once a formula has been shown; else nullptr.
    FormulaPopup *formulaPopup() const { return m_formula; }

    /// One figure as read aloud: its value, a space, its caption ("41.6 ms per token (per decode step)").
    QString timeText() const;
    /// The time figure's tooltip: how it was computed, and the band's meaning or why there is none.
    QString timeToolTip() const;
    QString throughputText() const;
    QString memoryText() const;
    QString boundText() const;
    QString explanationText() const;
    /// Everything, a line per figure, then the explanation (what Copy puts on the clipboard).
    QString text() const;
    /// True when the memory figure is drawn in the warning colour (the model does not fit).
    bool memoryWarned() const { return m_memoryWarned; }
    /// The figures' size over the window's font: 1.45 when the four fit side by side, less (down to 1) when not.
    double figureScale() const { return m_figureScale; }

    void setWarningColor(const QColor &c);

public slots:
    void refresh();
    void copyToClipboard() const;
    /// Opens (or moves) the formula window to `figure`'s derivation.
    void showFormula(int figure);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Figure
    {
        SteadyLabel *value = nullptr;
        SteadyLabel *caption = nullptr;
        QString text() const;
        void set(const QString &value, const QString &caption) const;
    };
    static QString timeTip();
    Figure addFigure(QGridLayout *grid, int column, const char *name, const QString &tip);
    void setWarned(bool warned);
    void applyFonts();
    /// The four figures' width side by side: each its value's or caption's, whichever is wider, and the gaps;
    /// `measure`: shaped now, else as the labels last measured them (SteadyLabel::measuredWidth()).
    int figuresWidth(bool measure) const;
    int figureRoom() const;
    void fitFigures();
    const Figure &figure(int id) const;

    ScenarioDocument *m_doc;
    Figure m_time, m_throughput, m_memory, m_bound;
    SteadyLabel *m_explanation;
    QGridLayout *m_figures = nullptr;
    double m_figureScale = 1.45;
    QColor m_warning{0xD5, 0x5E, 0x00};
    bool m_memoryWarned = false;
    bool m_errorShown = false;
    FormulaPopup *m_formula = nullptr;
};

} // namespace memwall::ui
