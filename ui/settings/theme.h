#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QString>
#include <QVector>

namespace memwall::ui {

/// Colours, fonts and line widths for charts and the window. `presentation` is for projectors: large fonts, thick
/// lines, high contrast. The series palette is Okabe–Ito (colour-blind safe) in every theme.
struct Theme
{
    QString id;        ///< "light", "dark", "presentation"
    QString name;      ///< display name
    QColor background; ///< chart/plot background
    QColor plotArea;
    QColor foreground; ///< text, axes
    QColor grid;
    QColor accent;          ///< selection, highlights, the "this is you" marker
    QColor warning;         ///< does-not-fit, over capacity
    QVector<QColor> series; ///< categorical palette
    qreal lineWidth = 2.0;  ///< ceilings, curves
    qreal markerScale = 1.0;
    int titlePointSize = 13;
    int labelPointSize = 10;
    int tickPointSize = 9;
    bool darkWindow = false; ///< also switch the application palette to dark

    QFont titleFont() const;
    QFont labelFont() const;
    QFont tickFont() const;
    /// i-th series colour (wraps around).
    QColor color(int i) const { return series.isEmpty() ? foreground : series[i % series.size()]; }
    /// The application palette for the window: a dark one when darkWindow, else the style's standard palette.
    QPalette windowPalette() const;

    static Theme light();
    static Theme dark();
    static Theme presentation();
    /// By id; unknown ids give light().
    static Theme byId(const QString &id);
    static QStringList ids() { return {"light", "dark", "presentation"}; }
};

} // namespace memwall::ui
