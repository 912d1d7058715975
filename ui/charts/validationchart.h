#pragma once

#include "ui/charts/chartbase.h"

#include "core/validation/validation.h"

#include <QPointF>

#include <string>

class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;

namespace memwall::ui {

class Callout;

/// Predicted against measured time for every public run of the validation set (presets/validation/runs.json,
/// `memwall validate`), on log–log axes that share one time scale (core::timeOf): the achievable prediction of each
/// run on a device with microbenchmarks, the ideal roofline of every run (a bound, so on or below the diagonal), the
/// diagonal and the ±25 % lines. Runs on the document's device are ringed. The chart follows the preset library (an
/// edited device changes its predictions) and the document's device, not the rest of the scenario: the runs have
/// their own settings.
class ValidationChart : public ChartBase
{
    Q_OBJECT
public:
    explicit ValidationChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~ValidationChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    const core::ValidationReport &report() const { return m_report; }
    /// (measured, predicted) time in seconds of a run's achievable or ideal figure.
    static QPointF achievablePoint(const core::ValidatedRun &v);
    static QPointF idealPoint(const core::ValidatedRun &v);
    /// The share either side of the diagonal that counts as a good prediction (the ±25 % lines).
    static constexpr double kTolerance = 0.25;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    void layoutOverlay();
    void showCallout(QScatterSeries *series, const QPointF &value, bool state);
    const core::ValidatedRun *rowAt(QScatterSeries *series, const QPointF &value) const;

    QLogValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    QLineSeries *m_diagonal = nullptr;
    QLineSeries *m_over = nullptr;  ///< predicted 25 % slower than measured
    QLineSeries *m_under = nullptr; ///< predicted 25 % faster
    QScatterSeries *m_achievable = nullptr;
    QScatterSeries *m_ideal = nullptr;
    QScatterSeries *m_current = nullptr; ///< rings around the runs on the document's device
    QGraphicsSimpleTextItem *m_summary = nullptr;
    QGraphicsRectItem *m_summaryBox = nullptr;
    Callout *m_callout = nullptr;

    core::ValidationReport m_report;
    const void *m_library = nullptr; ///< the preset library m_report was made from
    std::string m_device;            ///< the document's device the rings were drawn for
};

} // namespace memwall::ui
