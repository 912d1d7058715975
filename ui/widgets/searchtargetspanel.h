#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace memwall::ui {

class SearchChart;

/// The search chart's controls, beside it in its view: the latency targets (max TTFT, max TPOT, min tokens/s per user;
/// 0 = off) and the device budget. A target edit re-selects the front at once (no new search); the budget searches
/// again. Follows the chart's state (several views may show one chart), writing back under QSignalBlocker.
class SearchTargetsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SearchTargetsPanel(SearchChart *chart, QWidget *parent = nullptr);

    QDoubleSpinBox *maxTtft() const { return m_ttft; }
    QDoubleSpinBox *maxTpot() const { return m_tpot; }
    QDoubleSpinBox *minPerUser() const { return m_perUser; }
    QSpinBox *budget() const { return m_budget; }

private:
    void sync();       ///< controls follow the chart
    void writeBack();  ///< the chart follows the target controls
    void showStatus(); ///< the line under the controls

    SearchChart *m_chart;
    QDoubleSpinBox *m_ttft;
    QDoubleSpinBox *m_tpot;
    QDoubleSpinBox *m_perUser;
    QSpinBox *m_budget;
    QLabel *m_status;
};

} // namespace memwall::ui
