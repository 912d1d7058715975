#pragma once

#include "ui/charts/chartbase.h"

#include "ui/charts/plotlabels.h"

#include "core/trends/ridge.h"
#include "core/trends/trends.h"

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QStringList>

#include <array>
#include <optional>
#include <vector>

class QChart;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace memwall::ui {

class Callout;

/// The ridge point of every device in the preset library against its release year: peak FLOP/s ÷ main-memory
/// bandwidth (FLOP/byte), on a log axis. Each device is taken at its dense FP16 tensor peak, or BF16 where it has no
/// FP16 rate, or its fastest floating-point format where it has neither (core::ridgeFormat(): the marker shape and
/// the legend say which); devices whose main memory is on-chip SRAM (Cerebras, Groq) are drawn apart. The line is the
/// paper's growth (Gholami et al., "AI and Memory Wall", 2024): peak FLOPS ×3.0 and DRAM bandwidth ×1.6 every two
/// years (read from presets/trends, never typed here), so the ridge ×1.9 every two years, drawn from the earliest
/// 16-bit DRAM device (core::ridgeAnchor()). The document's device (with its what-if factors) is a star; devices are
/// named where a name fits without overlapping another, the document's device and the line's anchor first.
class RidgeChart : public ChartBase
{
    Q_OBJECT
public:
    explicit RidgeChart(ScenarioDocument *doc, QObject *parent = nullptr);
    ~RidgeChart() override;

    QString title() const override;
    nlohmann::json data() const override;
    QString csv() const override;

    /// The devices plotted (the preset library's, in its order).
    const std::vector<core::DeviceRidge> &devices() const { return m_devices; }
    /// The paper's growth, if the trend data states it.
    const std::optional<core::RidgeGrowth> &growth() const { return m_growth; }
    /// Where the document's device is drawn (markerYear(year), ridge in FLOP/byte); null point if it has no ridge.
    QPointF currentMarker() const;
    /// The star series of the document's device (for mapping its point).
    QScatterSeries *currentSeries() const { return m_current; }
    /// The growth line's points (year, FLOP/byte).
    QList<QPointF> growthLine() const;
    /// The device labels shown now, with their rectangles in chart coordinates (the growth line's label apart).
    QList<QPair<QString, QRectF>> visibleLabels() const;
    /// The growth line's label ("×1.9 / 2 years: the wall rising"), empty if hidden.
    QString growthLabel() const;

public slots:
    void refresh() override;

protected:
    void restyle() override;

private:
    /// The marker groups: by format against DRAM, and the devices whose main memory is on-chip SRAM.
    enum Group { Fp16, Bf16, OtherFormat, Sram, GroupCount };

    void layoutOverlay(); ///< title, legend, names, the line's label, callout
    void placeNames(const QRectF &area, const QRectF &legend);
    void placeLineLabel(const QRectF &area, std::vector<QRectF> &obstacles);
    QStringList titles() const;
    void showCallout(int device, const QPointF &at, QAbstractSeries *series, bool state);
    QString deviceText(const core::DeviceRidge &d) const;
    static Group groupOf(const core::DeviceRidge &d);

    core::TrendData m_trends;
    std::optional<core::RidgeGrowth> m_growth;
    std::vector<core::DeviceRidge> m_devices;
    QStringList m_names; ///< short label per device (vendor and parentheses dropped)
    std::optional<core::DeviceRidge> m_currentRidge;
    QString m_currentName;
    int m_anchor = -1; ///< index into m_devices of the growth line's anchor
    std::array<QScatterSeries *, GroupCount> m_groups{};
    std::array<std::vector<int>, GroupCount> m_groupDevices; ///< m_devices index of each point of each group
    QLineSeries *m_line = nullptr;
    QScatterSeries *m_current = nullptr;
    QValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    std::vector<QGraphicsSimpleTextItem *> m_labels; ///< one per device
    QGraphicsSimpleTextItem *m_currentLabel = nullptr;
    QGraphicsLineItem *m_currentLeader = nullptr; ///< from the star to its label, when the label had to move away
    QGraphicsLineItem *m_anchorLeader = nullptr;  ///< the same for the line's anchor
    QGraphicsSimpleTextItem *m_lineLabel = nullptr;
    Callout *m_callout = nullptr;
};

} // namespace memwall::ui
