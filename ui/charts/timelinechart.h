#pragma once

#include "ui/charts/chartbase.h"

#include "core/analysis/serving.h"

#include <QList>
#include <QPointF>
#include <QStringList>

#include <optional>
#include <vector>

class QAreaSeries;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace memwall::ui {

class Callout;

/// A request's timeline (issue #18): tokens generated per sequence against the time since the request arrived. The
/// prompt's prefill is a shaded block up to the first token; the decode steps follow, each a little slower than the
/// last as the KV cache grows (their time per token on the right axis). Every way of serving the request that the
/// scenario asks for (speculative decoding, chunked prefill, disaggregation with its KV transfer, KV offload) is a
/// curve of its own beside the plain one (core::timelineCurves), and energy and cost are stated in the plot. In
/// compare mode scenario B's plain request is drawn dashed.
class TimelineChart : public ChartBase
{
    Q_OBJECT
public:
    explicit TimelineChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~TimelineChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    /// The curves drawn (A's, then B's plain request in compare mode as id "b_plain"); empty with a message().
    const std::vector<core::TimelineCurve> &curves() const { return m_curves; }
    /// The serving report behind the curves; nullopt while the scenario cannot be served.
    const std::optional<core::ServingReport> &report() const { return m_report; }
    /// Why nothing is drawn ("" while curves are drawn).
    const QString &message() const { return m_message; }
    /// Seconds per unit of the time axis: 1e-3 while the request takes under 10 s (milliseconds), else 1.
    double timeUnitS() const { return m_unitS; }
    /// The line series of curve `i` of curves().
    QLineSeries *curveSeries(int i) const { return i >= 0 && i < m_lines.size() ? m_lines[i] : nullptr; }
    /// Curve `id`'s legend name ("Speculative, K 4 at A 0.8: 2.4× faster").
    QString curveName(const core::TimelineCurve &c) const;
    /// A legend name without its figures, for a legend that must fit in one row (a warning in parentheses stays).
    static QString shortCurveName(const QString &full);
    /// The energy and cost line shown in the plot ("" when the device has neither figure).
    QString costText() const;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    void layoutOverlay();
    void showCallout(int curve, const QPointF &point, bool state);

    QValueAxis *m_x = nullptr;
    QValueAxis *m_tokens = nullptr;
    QValueAxis *m_stepAxis = nullptr;
    QAreaSeries *m_prefill = nullptr;
    QAreaSeries *m_transfer = nullptr;
    QLineSeries *m_steps = nullptr;
    QScatterSeries *m_firstTokens = nullptr;
    QList<QLineSeries *> m_lines; ///< one per possible curve, reused (hidden when unused)
    QGraphicsSimpleTextItem *m_cost = nullptr;
    QGraphicsSimpleTextItem *m_messageLabel = nullptr;
    Callout *m_callout = nullptr;

    std::optional<core::ServingReport> m_report;
    std::vector<core::TimelineCurve> m_curves;
    bool m_shortLegend = false; ///< the curves' legend names without their figures (see layoutOverlay())
    QString m_message;
    double m_unitS = 1e-3;
};

} // namespace memwall::ui
