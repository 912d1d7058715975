#pragma once

#include "core/measure/measure.h"

#include <QObject>

#include <optional>

namespace memwall::ui {

/// Holds the last "Measure this computer" result so the roofline can plot the measured kernels (matrix-vector and
/// matrix-matrix points) beside the measured roofs. Not a singleton: the main window owns one and hands it to the
/// measure dialog and to the roofline chart.
///
/// What the roofline draws with it: while the document's device id is deviceId() ("this-computer"), one scatter
/// series "Measured kernels" with x = MeasuredKernel::arithmeticIntensity() (FLOP/byte) and y =
/// MeasuredKernel::flopsPerS() (FLOP/s), labelled by MeasuredKernel::name in the hover tooltip. The roofs themselves
/// are already in the device (core::measuredDevice: FP32 peak = the measured roof, one DRAM level = the triad).
class MeasuredPoints : public QObject
{
    Q_OBJECT
public:
    explicit MeasuredPoints(QObject *parent = nullptr) : QObject(parent) {}

    /// The id core::measuredDevice() gives the measured machine.
    static QString deviceId() { return QStringLiteral("this-computer"); }

    bool hasResult() const { return m_result.has_value(); }
    /// Only valid when hasResult().
    const core::MeasureResult &result() const { return *m_result; }
    /// The measured kernels (empty without a result).
    std::vector<core::MeasuredKernel> points() const
    {
        return m_result ? m_result->points : std::vector<core::MeasuredKernel>{};
    }

    void setResult(const core::MeasureResult &r)
    {
        m_result = r;
        emit changed();
    }
    void clear()
    {
        if (!m_result)
            return;
        m_result.reset();
        emit changed();
    }

signals:
    void changed();

private:
    std::optional<core::MeasureResult> m_result;
};

} // namespace memwall::ui
