#include "ui/dialogs/presetfiles.h"
#include <QLabel>
#include <QLocale>
#include <QStandardPaths>

namespace memwall::ui {

nlohmann::json numberFromText(const QString &text, double scale)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return nullptr;
    bool ok = false;
    // The editors show numbers in C format ("989.4"); a number typed in the user's own format is accepted too.
    double v = QLocale::c().toDouble(t, &ok);
    if (!ok)
        v = QLocale().toDouble(t, &ok);
    if (!ok)
        return t.toStdString();
    return v * scale;
}

QString textFromNumber(double value, double scale) { return QString::number(value / scale, 'g', 10); }

QLabel *makeErrorLabel(QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setWordWrap(true);
    QPalette p = l->palette();
    p.setColor(QPalette::WindowText, QColor(0xb3, 0x26, 0x1e)); // the error red of both editors
    l->setPalette(p);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->hide();
    return l;
}

void setInvalid(QWidget *w, bool invalid)
{
    if (!w)
        return;
    w->setStyleSheet(invalid ? QStringLiteral("background-color: %1;").arg(kInvalidBackground.name()) : QString());
}

} // namespace memwall::ui
