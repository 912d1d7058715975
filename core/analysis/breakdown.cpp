#include "core/analysis/breakdown.h"

namespace memwall::core {

std::string_view toString(ShareClass c)
{
    switch (c) {
    case ShareClass::TensorContraction: return "tensor_contraction";
    case ShareClass::Normalization: return "normalization";
    case ShareClass::Elementwise: return "elementwise";
    case ShareClass::Communication: return "communication";
    }
    return "";
}

std::string_view displayName(ShareClass c)
{
    switch (c) {
    case ShareClass::TensorContraction: return "Tensor contractions";
    case ShareClass::Normalization: return "Normalization";
    case ShareClass::Elementwise: return "Element-wise";
    case ShareClass::Communication: return "Communication";
    }
    return "";
}

ShareClass shareClassOf(OpClass c)
{
    switch (c) {
    case OpClass::Matmul:
    case OpClass::Attention: return ShareClass::TensorContraction;
    case OpClass::Normalization: return ShareClass::Normalization;
    case OpClass::Elementwise: return ShareClass::Elementwise;
    case OpClass::Communication: return ShareClass::Communication;
    }
    return ShareClass::Elementwise;
}

ClassShares classShares(const Analysis &a)
{
    ClassShares s;
    for (const Operator &op : a.operators) {
        if (op.onLink())
            continue; // its time is in a.comm.timeS, added below
        const auto i = static_cast<std::size_t>(shareClassOf(op.cls));
        s.flops[i] += op.flops;
        s.timeS[i] += op.timeS;
    }
    s.timeS[static_cast<std::size_t>(ShareClass::Communication)] += a.comm.timeS;
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        s.totalFlops += s.flops[i];
        s.totalTimeS += s.timeS[i];
    }
    for (std::size_t i = 0; i < kShareClassCount; ++i) {
        s.flopShare[i] = s.totalFlops > 0 ? s.flops[i] / s.totalFlops : 0.0;
        s.timeShare[i] = s.totalTimeS > 0 ? s.timeS[i] / s.totalTimeS : 0.0;
    }
    return s;
}

} // namespace memwall::core
