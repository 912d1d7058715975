#include "core/analysis/sweep.h"

#include "core/analysis/options.h"
#include "core/util/oneline.h"

#include <algorithm>
#include <charconv>

namespace memwall::core {

namespace {
int64_t parseInt(std::string_view text, std::string_view whole)
{
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size())
        throw AnalysisError("--vary " + echoValue(whole) + ": '" + echoValue(text) + "' is not a whole number");
    if (v < 0)
        throw AnalysisError("--vary " + echoValue(whole) + ": '" + echoValue(text) + "' must not be negative");
    return v;
}
} // namespace

SweepAxis parseSweepAxis(std::string_view text)
{
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
        throw AnalysisError("--vary " + echoValue(text) + ": expected FIELD=FROM:TO[:STEP] or FIELD=A,B,C");
    constexpr std::size_t kMaxValues = 1u << 20;
    SweepAxis axis;
    axis.field = std::string(text.substr(0, eq));
    const auto fields = sweepableFields();
    if (std::find(fields.begin(), fields.end(), axis.field) == fields.end()) {
        std::string list;
        for (auto f : fields)
            list += (list.empty() ? "" : ", ") + std::string(f);
        throw AnalysisError("--vary " + echoValue(text) + ": cannot vary '" + echoValue(axis.field) + "' (" + list +
                            ")");
    }
    const std::string_view spec = text.substr(eq + 1);
    if (spec.find(',') != std::string_view::npos) {
        std::size_t start = 0;
        while (start <= spec.size()) {
            const auto comma = spec.find(',', start);
            axis.values.push_back(parseInt(spec.substr(start, comma - start), text));
            if (comma == std::string_view::npos)
                break;
            start = comma + 1;
        }
    } else if (const auto c1 = spec.find(':'); c1 != std::string_view::npos) {
        const auto c2 = spec.find(':', c1 + 1);
        const int64_t from = parseInt(spec.substr(0, c1), text);
        const int64_t to =
            parseInt(spec.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1), text);
        if (from > to)
            throw AnalysisError("--vary " + echoValue(text) + ": FROM is larger than TO");
        if (c2 == std::string_view::npos) {
            if (from < 1)
                throw AnalysisError("--vary " + echoValue(text) + ": a doubling range must start at 1 or more");
            for (int64_t v = from;; v *= 2) { // stops before v * 2 could pass `to` (or overflow)
                axis.values.push_back(v);
                if (v > to / 2)
                    break;
            }
        } else {
            const int64_t step = parseInt(spec.substr(c2 + 1), text);
            if (step < 1)
                throw AnalysisError("--vary " + echoValue(text) + ": STEP must be at least 1");
            // Counted first (unsigned: 0:INT64_MAX:1 has 2^63 values), so a huge range cannot fill the memory.
            const uint64_t count = static_cast<uint64_t>(to - from) / static_cast<uint64_t>(step) + 1;
            if (count > kMaxValues)
                throw AnalysisError("--vary " + echoValue(text) + ": between 1 and 1048576 values, got " +
                                    std::to_string(count));
            for (int64_t i = 0; i < static_cast<int64_t>(count); ++i)
                axis.values.push_back(from + i * step);
        }
    } else {
        axis.values.push_back(parseInt(spec, text));
    }
    if (axis.values.empty() || axis.values.size() > kMaxValues)
        throw AnalysisError("--vary " + echoValue(text) + ": between 1 and 1048576 values, got " +
                            std::to_string(axis.values.size()));
    const ScenarioOption &option = *findOption(axis.field);
    const auto [lo, hi] = std::minmax_element(axis.values.begin(), axis.values.end());
    for (int64_t v : {*lo, *hi})
        if (auto e = checkOption(option, v); !e.empty())
            throw AnalysisError("--vary " + echoValue(text) + ": " + axis.field + " " + e);
    return axis;
}

void sweepEach(const HardwareSpec &hw, const ModelShape &m, const Scenario &base, const std::vector<SweepAxis> &axes,
               const std::function<void(const SweepRow &)> &visit)
{
    std::size_t total = 1;
    for (const auto &a : axes)
        total *= a.values.size();
    std::vector<std::size_t> idx(axes.size(), 0);
    std::vector<const ScenarioOption *> fields;
    for (const auto &a : axes) {
        fields.push_back(findOption(a.field));
        if (!fields.back() || fields.back()->kind != OptionKind::Integer)
            throw AnalysisError("cannot vary '" + a.field + "'");
    }
    // The model's check and counts and the ranges of the options that do not vary, once for every point: each point
    // checks its varied values (with analyze()'s messages) and what relates the fields to one another.
    const PreparedAnalyses prepared = prepareAnalyses(m, base, fields);
    WhatIf unused;
    SweepRow row;
    for (std::size_t n = 0; n < total; ++n) {
        row.scenario = base;
        row.error.clear();
        for (std::size_t k = 0; k < axes.size(); ++k)
            fields[k]->set(row.scenario, unused, axes[k].values[idx[k]]);
        try {
            const Analysis a = analyzeTotals(hw, m, row.scenario, prepared);
            row.totals = a.totals;
            row.memory = a.memory;
            row.phases = a.phases;
            row.kvTotalBytes = a.kvCache.totalBytes;
        } catch (const AnalysisError &e) {
            row.totals = {};
            row.memory = {};
            row.phases = {};
            row.kvTotalBytes = 0;
            row.error = e.what();
        }
        visit(row);
        for (std::size_t k = axes.size(); k-- > 0;) {
            if (++idx[k] < axes[k].values.size())
                break;
            idx[k] = 0;
        }
    }
}

std::vector<SweepRow> sweep(const HardwareSpec &hw, const ModelShape &m, const Scenario &base,
                            const std::vector<SweepAxis> &axes)
{
    std::vector<SweepRow> rows;
    sweepEach(hw, m, base, axes, [&rows](const SweepRow &r) { rows.push_back(r); });
    return rows;
}

void BatchAnswers::add(const SweepRow &r, double maxTpotS)
{
    if (!r.error.empty())
        return;
    if (!firstComputeBound && r.totals.bound == Bound::Compute)
        firstComputeBound = r.scenario.batch;
    if (!firstLinearComputeBound && r.totals.linearBound == Bound::Compute)
        firstLinearComputeBound = r.scenario.batch;
    if (r.memory.fits)
        largestFitting = std::max(largestFitting, r.scenario.batch);
    const double tpot = r.scenario.phase == Phase::Generate ? r.phases.tpotS : r.totals.timeS;
    if (maxTpotS > 0 && r.memory.fits && tpot <= maxTpotS && r.totals.tokensPerS > bestThroughput) {
        bestThroughput = r.totals.tokensPerS;
        bestUnderTpot = r.scenario.batch;
    }
}

BatchAnswers answerBatchSweep(const std::vector<SweepRow> &rows, double maxTpotS)
{
    BatchAnswers a;
    for (const auto &r : rows)
        a.add(r, maxTpotS);
    return a;
}

} // namespace memwall::core
