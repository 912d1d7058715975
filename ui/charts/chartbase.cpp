#include "ui/charts/chartbase.h"

#include "ui/document/scenariodocument.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>

namespace memwall::ui {

ChartBase::ChartBase(ScenarioDocument *doc, QObject *parent)
    : QObject(parent), m_chart(new QChart), m_chartGuard(m_chart), m_doc(doc), m_theme(Theme::light())
{
    m_chart->setAnimationOptions(QChart::NoAnimation); // a slider tick must repaint at once
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    connect(doc, &ScenarioDocument::analysisChanged, this, &ChartBase::refresh);
}

ChartBase::~ChartBase()
{
    // A chart shown in a view belongs to the view's scene; otherwise it is ours.
    if (m_chartGuard && !m_chart->scene())
        delete m_chart;
}

QGraphicsWidget *ChartBase::graphicsWidget() const
{
    return m_chart;
}

void ChartBase::setTheme(const Theme &theme)
{
    m_theme = theme;
    m_chart->setBackgroundBrush(theme.background);
    m_chart->setPlotAreaBackgroundBrush(theme.plotArea);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setTitleBrush(theme.foreground);
    m_chart->setTitleFont(theme.titleFont());
    m_chart->legend()->setLabelColor(theme.foreground);
    m_chart->legend()->setFont(theme.labelFont());
    for (QAbstractAxis *axis : m_chart->axes()) {
        axis->setLabelsBrush(theme.foreground);
        axis->setLabelsFont(theme.tickFont());
        axis->setTitleBrush(theme.foreground);
        axis->setTitleFont(theme.labelFont());
        axis->setGridLineColor(theme.grid);
        axis->setMinorGridLineColor(theme.grid.lighter(theme.darkWindow ? 80 : 115));
        axis->setLinePenColor(theme.foreground);
    }
    restyle();
}

} // namespace memwall::ui
