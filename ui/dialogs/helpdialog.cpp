#include "ui/dialogs/helpdialog.h"

#include "ui/charts/chartview.h"
#include "ui/lessons/lessonkeys.h"
#include "ui/widgets/headlinebar.h"
#include "ui/widgets/operatortable.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QRegularExpression>
#include <QSet>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace memwall::ui {

namespace {

/// The part of the window a widget-bound shortcut works in, named for people.
QString scopeOf(const QAction *action)
{
    if (action->shortcutContext() != Qt::WidgetShortcut && action->shortcutContext() != Qt::WidgetWithChildrenShortcut)
        return {};
    for (const QObject *o = action->parent(); o; o = o->parent()) {
        if (qobject_cast<const ChartView *>(o))
            return HelpDialog::tr("in a chart");
        if (qobject_cast<const HeadlineBar *>(o))
            return HelpDialog::tr("on a headline figure");
        if (qobject_cast<const OperatorTable *>(o))
            return HelpDialog::tr("in the operator table");
    }
    return HelpDialog::tr("where it shows");
}

QString plainText(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    text.replace(QStringLiteral("&&"), QStringLiteral("&"));
    text.remove(QStringLiteral("…"));
    return text.split(QLatin1Char('\t')).front().trimmed();
}

} // namespace

QList<HelpDialog::Shortcut> HelpDialog::shortcuts(const QWidget *window)
{
    QList<Shortcut> global, local;
    QSet<QString> seen;
    for (const QAction *a : window->findChildren<QAction *>()) {
        if (a->shortcuts().isEmpty() || a->text().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        // An action whose text changes (Undo names the step) says what it does in its "helpText" property.
        const QString text = a->property("helpText").isValid() ? a->property("helpText").toString() : a->text();
        Shortcut s{keys.join(QStringLiteral(", ")), plainText(text), scopeOf(a)};
        if (s.what.isEmpty() || seen.contains(s.keys + '\n' + s.what))
            continue;
        seen.insert(s.keys + '\n' + s.what);
        (s.where.isEmpty() ? global : local) << s;
    }
    return global + local;
}

QString HelpDialog::html(const QWidget *window)
{
    QString out =
        tr("<h2>Getting started</h2>"
           "<p>MemWall shows why large models are limited by memory more than by arithmetic: pick a device "
           "and a model on the left, and every chart, the headline above them and the operator table below "
           "follow.</p>"
           "<ol>"
           "<li><b>Device and model</b>: type an id (<code>h100-sxm</code>) or part of a name, then Enter.</li>"
           "<li><b>Batch</b>: drag it; watch the roofline's operators move right, toward the ridge, and the "
           "headline say what bounds the run.</li>"
           "<li><b>Charts</b>: one tab each; the wheel zooms, a drag pans, double-click or R resets. "
           "Right-click a figure of the headline or a cell of the table for its formula.</li>"
           "<li><b>Compare</b>: a scenario B beside yours, in every chart and a table of ratios.</li>"
           "<li><b>Lessons</b>: guided steps with questions; Presentation mode shows one chart at a time, "
           "full screen, for a class.</li>"
           "</ol>"
           "<p>Every change can be undone; save a scenario to reopen it, or export a chart.</p>"
           "<h2>Keyboard shortcuts</h2><table cellpadding=\"3\">");
    const auto row = [&out](const QString &keys, const QString &what) {
        out += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
    };
    for (const Shortcut &s : shortcuts(window))
        row(s.keys, s.where.isEmpty() ? s.what : tr("%1 (%2)").arg(s.what, s.where));
    out +=
        QStringLiteral("</table><h3>%1</h3><table cellpadding=\"3\">").arg(tr("While a lesson runs").toHtmlEscaped());
    for (const auto &[keys, what] : LessonKeys::keyList())
        row(keys, what);
    return out + QStringLiteral("</table>");
}

HelpDialog::HelpDialog(QWidget *window, QWidget *parent) : QDialog(parent), m_browser(new QTextBrowser(this))
{
    setObjectName("helpDialog");
    setWindowTitle(tr("Getting started with MemWall"));
    m_browser->setOpenExternalLinks(true);
    m_browser->setHtml(html(window));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_browser, 1);
    layout->addWidget(buttons);
    resize(640, 560);
}

} // namespace memwall::ui
