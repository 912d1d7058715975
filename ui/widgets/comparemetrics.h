#pragma once

#include "core/analysis/analysis.h"
#include "core/analysis/scenario.h"

#include <QString>

#include <vector>

namespace memwall::ui {

/// Which device a metric favours.
enum class Better { Neither, A, B };

/// One row of the compare table: a headline number of device A against device B (same model and scenario).
struct CompareMetric
{
    QString name;
    QString toolTip;
    QString a, b; ///< formatted with unit
    double valueA = 0, valueB = 0;
    bool numeric = true; ///< false for text rows (bound, fits): no ratio
    double ratio = 0;    ///< valueB / valueA (0 when not numeric or valueA is 0)
    Better better = Better::Neither;
};

/// The headline metrics of two analyses of the same model and scenario on devices A and B: time per token or step,
/// tokens/s, achieved and peak compute, bandwidth, intensity, ridge, bound, memory per device against capacity, fit,
/// KV cache and communication time. Pure: the compare panel shows it, tests check it.
std::vector<CompareMetric> compareMetrics(const core::Analysis &a, const core::Analysis &b, const core::Scenario &s);
/// The same for scenario B with its own formats (`sb`: A's scenario with B's overrides): rows naming the weight,
/// KV-cache and activation formats that differ come first.
std::vector<CompareMetric> compareMetrics(const core::Analysis &a, const core::Analysis &b, const core::Scenario &sa,
                                          const core::Scenario &sb);

} // namespace memwall::ui
