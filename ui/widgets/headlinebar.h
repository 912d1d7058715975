#pragma once

#include <QColor>
#include <QFrame>

class QLabel;

namespace memwall::ui {

class ScenarioDocument;

/// The headline above the charts: time for the phase (ms/token for decode, TTFT/TPOT for generate, per step for
/// training), tokens/s, memory used of capacity (in the warning colour when it does not fit), what bounds the run,
/// and one generated sentence saying why (core::explain). Shows the document's analysisError() when there is one.
class HeadlineBar : public QFrame
{
    Q_OBJECT
public:
    explicit HeadlineBar(ScenarioDocument *doc, QWidget *parent = nullptr);

    QLabel *timeLabel() const { return m_time; }
    QLabel *throughputLabel() const { return m_throughput; }
    QLabel *memoryLabel() const { return m_memory; }
    QLabel *boundLabel() const { return m_bound; }
    QLabel *explanationLabel() const { return m_explanation; }

    void setWarningColor(const QColor &c);

public slots:
    void refresh();

private:
    ScenarioDocument *m_doc;
    QLabel *m_time;
    QLabel *m_throughput;
    QLabel *m_memory;
    QLabel *m_bound;
    QLabel *m_explanation;
    QColor m_warning{0xD5, 0x5E, 0x00};
};

} // namespace memwall::ui
