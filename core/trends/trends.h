#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memwall::core {

/// One marker of a trend figure: a device, a memory or link generation, or a model, at a date.
struct TrendPoint
{
    std::string name;                 ///< display name; a trailing "?" marks a tentative identification
    double year = 0;                  ///< decimal year (2020.3661 = 14 May 2020)
    double value = 0;                 ///< in the series' unit (SI: FLOP/s, B/s, bit/s per lane, parameters, FLOP); > 0
    std::optional<double> normalized; ///< as plotted in the paper's figure, relative to the series' first marker
    std::string date;                 ///< ISO date "YYYY-MM-DD" if known
    std::string labelInFigure;        ///< the name printed next to the marker in the figure, if any
    std::string identification;       ///< a tentative identification of an unlabelled marker
    std::string group;                ///< e.g. "likely NVIDIA GPU series", "CV", "Transformer"
    std::string note;
    int marker = 0;    ///< index of the marker in the figure's PDF (0 = not recorded)
    bool inFit = true; ///< false: plotted, but left out of the growth fit (as in the paper's line)
};

/// One series of a trend figure, e.g. peak FLOPS of server hardware 1997-2022.
struct TrendSeries
{
    std::string id; ///< stable: "hw_peak_flops", "dram_bandwidth", "interconnect_bandwidth",
                    ///< "transformer_params", "training_compute", "ai_hw_memory", "cv_params", ...
    std::string name;
    std::string unit; ///< unit of TrendPoint::value
    std::string note;
    std::string source;             ///< where the numbers come from (never empty)
    std::vector<TrendPoint> points; ///< sorted by year (stable)
    bool fitted = false; ///< the paper draws (and states) a growth line for this series; the GUI draws one too
    std::optional<double> paperFactorPer2Years; ///< the growth the paper states, e.g. 3.0 for peak FLOPS
    std::string file;                           ///< the data file it came from ("trends/hardware.json")
};

/// All trend series, in file order (hardware first).
struct TrendData
{
    std::vector<TrendSeries> series;
    /// The series with this id, or nullptr.
    const TrendSeries *find(std::string_view id) const;
};

/// Exponential growth fitted by ordinary least squares of log10(value) on the decimal year:
///   log10(value) = interceptLog10 + slopeLog10PerYear * year,
/// so the growth over two years is factorPer2Years = 10^(2 * slopeLog10PerYear), and r2 is the coefficient of
/// determination of that regression in log space (1 = all points on the line).
struct GrowthFit
{
    double slopeLog10PerYear = 0;
    double interceptLog10 = 0;
    double factorPer2Years = 1;
    double r2 = 0;
    int points = 0; ///< number of points the fit used

    /// The fitted value at a decimal year, in the unit of the fitted points.
    double at(double year) const;
};

/// Fits exponential growth to the points with inFit == true (see GrowthFit for the method).
/// Throws std::invalid_argument if fewer than two such points, if they all share one year, or if a value is not
/// positive and finite (a log scale has no room for it).
GrowthFit fitExponential(const std::vector<TrendPoint> &points);

/// The series with every value divided by the value of its first point (by year) at or after `baseYear`, as the
/// GUI plots "normalised to year X" (the reference point becomes 1; earlier points get their ratio too). The unit
/// becomes "x <reference name> (<year>)". Points keep their other fields; `normalized` is set to the new ratio.
/// If no point lies at or after baseYear the returned series has no points. Growth factors are unchanged.
TrendSeries normalize(const TrendSeries &series, double baseYear);

/// The trend data compiled into the program: every builtinPresetFiles() entry whose path starts with "trends/".
/// Throws InputError naming file and field if a file is malformed or two series share an id.
TrendData loadBuiltinTrends();

/// Parses one trends file (schema: presets/trends/README.md); `file` names it in messages. Throws InputError
/// ("FILE: series[2].points[0].value: ...") on missing or mistyped fields, unknown keys, a value that is not
/// positive, or a fitted series with fewer than two fittable points.
TrendData trendsFromJson(const nlohmann::json &j, const std::string &file);

/// The `memwall trends --json` document:
///   {"series": [{"id", "name", "unit", "note", "source", "fitted": true, "factor_per_2_years", "r2",
///                "slope_log10_per_year", "intercept_log10", "fit_points", "paper_factor_per_2_years"?,
///                "points": [{"name", "year", "value", "date"?, "normalized"?, "label_in_figure"?, "group"?,
///                            "in_fit"}]}],
///    "other_series": [ ...series the paper fits no line to (same fields, no fit fields, "fitted": false) ]}
/// Values are in SI units as in the data, unrounded.
nlohmann::json toJson(const TrendData &data);
/// One series; with its fit fields if `series.fitted`.
nlohmann::json toJson(const TrendSeries &series);
/// A fit's fields: factor_per_2_years, r2, slope_log10_per_year, intercept_log10, fit_points.
nlohmann::json toJson(const GrowthFit &fit);

} // namespace memwall::core
