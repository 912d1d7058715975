#pragma once
// What the core suites ask of an analysis: an operator by name (and its count and FLOPs), and a decode step's
// scenario.

#include "core/analysis/analysis.h"

#include <QtTest>

#include <cstdint>
#include <string>
#include <string_view>

namespace testanalysis {

/// The operator `name` of `a`, or nullptr.
inline const memwall::core::Operator *findOp(const memwall::core::Analysis &a, std::string_view name)
{
    for (const memwall::core::Operator &op : a.operators)
        if (op.name == name)
            return &op;
    return nullptr;
}

/// Operator `name` of `a` runs `count` times at `flopsEach` FLOPs each (fails the calling test otherwise).
inline void checkOperator(const memwall::core::Analysis &a, std::string_view name, double count, double flopsEach)
{
    const memwall::core::Operator *op = findOp(a, name);
    QVERIFY2(op, std::string(name).c_str());
    QCOMPARE(op->count, count);
    QCOMPARE(op->flops, count * flopsEach);
}

/// One decode step at batch 1 after `context` tokens, the scenario's defaults otherwise.
inline memwall::core::Scenario decodeAt(int64_t context)
{
    memwall::core::Scenario s;
    s.phase = memwall::core::Phase::Decode;
    s.batch = 1;
    s.context = context;
    return s;
}

} // namespace testanalysis
