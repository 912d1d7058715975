#pragma once

#include <QObject>

class QWidget;

namespace memwall::ui {

/// Fills a widget's background in bands of at most 64 lines, instead of letting Qt fill the repainted region.
///
/// Qt's raster engine hands a fill taller than 96 lines to its thread pool in 64-line pieces and waits for them.
/// On a machine with few cores, waking the pool and waiting costs more than the fill: each column of the operator
/// table that a slider tick repaints (300 lines and more) paid it, several times a tick. A fill of at most 64 lines
/// stays on the painting thread. The pixels are the same: the same brush over the same region.
///
/// Installed on a widget that fills its background (autoFillBackground), it takes that job over: the widget is
/// marked opaque and fills nothing itself, and this filter fills the region before the widget paints.
class StripFill : public QObject
{
public:
    static void install(QWidget *widget);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    using QObject::QObject;
};

} // namespace memwall::ui
