#include "ui/util/stripfill.h"

#include <QPaintEvent>
#include <QPainter>
#include <QWidget>

#include <algorithm>

namespace memwall::ui {

namespace {
constexpr int kBand = 64; ///< lines; Qt's raster fills split work over threads from 97 lines on
}

void StripFill::install(QWidget *widget)
{
    widget->installEventFilter(new StripFill(widget));
    widget->setAutoFillBackground(false);
    widget->setAttribute(Qt::WA_OpaquePaintEvent);
}

bool StripFill::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint) {
        auto *widget = static_cast<QWidget *>(watched);
        const QBrush brush = widget->palette().brush(widget->backgroundRole());
        QPainter painter(widget);
        for (const QRect &r : static_cast<QPaintEvent *>(event)->region())
            for (int y = r.top(); y <= r.bottom(); y += kBand)
                painter.fillRect(QRect(r.left(), y, r.width(), std::min(kBand, r.bottom() - y + 1)), brush);
    }
    return QObject::eventFilter(watched, event);
}

} // namespace memwall::ui
