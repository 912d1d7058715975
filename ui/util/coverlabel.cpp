#include "ui/util/coverlabel.h"

#include <QEvent>

namespace memwall::ui {

CoverLabel::CoverLabel(QWidget *host) : QLabel(host)
{
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setAutoFillBackground(true);
    setAttribute(Qt::WA_NoMousePropagation);
    host->installEventFilter(this);
}

CoverLabel *CoverLabel::shownOver(const QWidget *host)
{
    auto *c = host ? host->findChild<CoverLabel *>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
    return c && !c->isHidden() ? c : nullptr;
}

CoverLabel *CoverLabel::cover(QWidget *host, const QString &text)
{
    auto *c = host->findChild<CoverLabel *>(QString(), Qt::FindDirectChildrenOnly);
    if (text.isEmpty()) {
        if (c)
            c->hide();
        return nullptr;
    }
    if (!c)
        c = new CoverLabel(host);
    c->setText(text);
    c->setGeometry(host->rect());
    c->show();
    c->raise();
    return c;
}

bool CoverLabel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parent() && event->type() == QEvent::Resize)
        setGeometry(static_cast<QWidget *>(watched)->rect());
    return QLabel::eventFilter(watched, event);
}

} // namespace memwall::ui
