#include "ui/settings/theme.h"

#include <QApplication>
#include <QObject>
#include <QStringList>
#include <QStyle>

namespace memwall::ui {

namespace {

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6), disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));
    p.setColor(QPalette::HighlightedText, Qt::black);
    p.setColor(QPalette::Link, QColor(0x56, 0xB4, 0xE9));
    p.setColor(QPalette::PlaceholderText, disabled);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

// Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision deficiency.
const QVector<QColor> kOkabeIto = {QColor("#0072B2"), QColor("#E69F00"), QColor("#009E73"), QColor("#CC79A7"),
                                   QColor("#56B4E9"), QColor("#D55E00"), QColor("#F0E442"), QColor("#000000")};
} // namespace

QFont Theme::titleFont() const
{
    QFont f;
    f.setPointSize(titlePointSize);
    f.setBold(true);
    return f;
}

QFont Theme::labelFont() const
{
    QFont f;
    f.setPointSize(labelPointSize);
    return f;
}

QFont Theme::tickFont() const
{
    QFont f;
    f.setPointSize(tickPointSize);
    return f;
}

Theme Theme::light()
{
    Theme t;
    t.id = "light";
    t.name = QObject::tr("Light");
    t.background = QColor("#ffffff");
    t.plotArea = QColor("#ffffff");
    t.foreground = QColor("#1f2328");
    t.grid = QColor("#d8dee4");
    t.accent = QColor("#D55E00");
    t.warning = QColor("#C62828");
    t.series = kOkabeIto;
    return t;
}

Theme Theme::dark()
{
    Theme t = light();
    t.id = "dark";
    t.name = QObject::tr("Dark");
    t.background = QColor("#1e1f22");
    t.plotArea = QColor("#1e1f22");
    t.foreground = QColor("#e6e6e6");
    t.grid = QColor("#3a3d41");
    t.accent = QColor("#FFB000");
    t.warning = QColor("#FF6B6B");
    t.series = kOkabeIto;
    t.series[0] = QColor("#56B4E9"); // the dark blue is too dim on black
    t.series[4] = QColor("#0072B2");
    t.series[7] = QColor("#ffffff");
    t.darkWindow = true;
    return t;
}

Theme Theme::presentation()
{
    Theme t = light();
    t.id = "presentation";
    t.name = QObject::tr("Presentation");
    t.foreground = QColor("#000000");
    t.grid = QColor("#bfbfbf");
    t.lineWidth = 4.0;
    t.markerScale = 1.6;
    t.titlePointSize = 24;
    t.labelPointSize = 18;
    t.tickPointSize = 16;
    return t;
}

QPalette Theme::windowPalette() const { return darkWindow ? darkPalette() : QApplication::style()->standardPalette(); }

Theme Theme::byId(const QString &id)
{
    if (id == "dark")
        return dark();
    if (id == "presentation")
        return presentation();
    return light();
}

} // namespace memwall::ui
