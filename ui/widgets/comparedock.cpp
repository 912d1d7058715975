#include "ui/widgets/comparedock.h"

#include "ui/controls/presetpicker.h"
#include "ui/document/scenariodocument.h"
#include "ui/widgets/comparepanel.h"
#include "ui/widgets/dockplacement.h"

#include <QAction>
#include <QMainWindow>

namespace memwall::ui {

CompareDock::CompareDock(ScenarioDocument *doc, QWidget *parent)
    : QDockWidget(tr("Compare"), parent), m_doc(doc), m_panel(new ComparePanel(doc, this)),
      m_toggle(new QAction(tr("&Compare with…"), this))
{
    setObjectName("CompareDock");
    setWidget(m_panel);
    m_toggle->setObjectName(QStringLiteral("action:compare"));
    m_toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_toggle->setToolTip(tr("Overlay a scenario B (another device, other formats) on the charts, with a table of "
                            "differences. Again, or closing the panel, turns it off."));
    connect(m_toggle, &QAction::triggered, this, [this] {
        if (m_doc->isComparing()) {
            hide();
            return;
        }
        // Beside the charts where there is room; in a narrow window (1024×768) a tab over the Controls: beside both,
        // the roofline was 170 px wide.
        if (auto *window = qobject_cast<QMainWindow *>(parentWidget()))
            showDockWhereRoom(window, this);
        else
            show();
        raise();
        m_panel->picker()->setFocus();
        m_panel->picker()->showPopup();
    });
    connect(this, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible && !isVisible() && m_doc->isComparing())
            m_doc->setCompare(std::nullopt);
    });
}

} // namespace memwall::ui
