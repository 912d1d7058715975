#include "ui/widgets/sidepanels.h"

#include "ui/charts/searchchart.h"
#include "ui/widgets/searchtargetspanel.h"

namespace memwall::ui {

QWidget *createSidePanel(ChartBase &chart, QWidget *parent)
{
    if (auto *search = qobject_cast<SearchChart *>(&chart))
        return new SearchTargetsPanel(search, parent);
    return nullptr;
}

} // namespace memwall::ui
