#include "ui/util/precisionchoices.h"

#include "ui/util/text.h"

namespace memwall::ui::precision {

int weightChoiceIndex(const core::WeightFormat &w)
{
    for (std::size_t i = 0; i < kWeightChoices.size(); ++i)
        if (kWeightChoices[i].format.type == w.type && kWeightChoices[i].format.groupSize == w.groupSize)
            return static_cast<int>(i);
    return -1;
}

QString dtypeLabel(core::DType t) { return qs(core::toString(t)); }

QString weightLabel(const core::WeightFormat &w)
{
    QString s = dtypeLabel(w.type);
    if (w.groupSize > 0)
        s += QStringLiteral("-g%1").arg(w.groupSize);
    return s;
}

} // namespace memwall::ui::precision
