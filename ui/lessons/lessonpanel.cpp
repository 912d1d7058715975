#include "ui/lessons/lessonpanel.h"

#include "ui/document/scenariodocument.h"
#include "ui/lessons/lessoncontroller.h"

#include <QBoxLayout>
#include <QEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBrowser>
#include <QTextDocument>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

namespace {
constexpr qreal kCaptionBodyPoints = 22; ///< the presentation caption's text
constexpr qreal kCaptionMinPoints = 14;  ///< the least it shrinks to, to fit half the window
} // namespace

LessonPanel::LessonPanel(LessonController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_lessonTitle(new QLabel(this)), m_stepTitle(new QLabel(this)),
      m_text(new QTextBrowser(this)), m_errors(new QLabel(this)), m_counter(new QLabel(this)),
      m_prev(new QPushButton(tr("◀ Previous"), this)), m_next(new QPushButton(tr("Next ▶"), this)),
      m_end(new QPushButton(tr("End lesson"), this))
{
    setObjectName("lessonPanel");
    m_lessonTitle->setWordWrap(true);
    m_stepTitle->setWordWrap(true);
    m_text->setOpenExternalLinks(true);
    m_text->setFrameShape(QFrame::NoFrame);
    m_text->installEventFilter(this);
    m_text->setToolTip(tr("Every number in this text is computed from the current analysis: change the device or a "
                          "slider and it follows."));
    m_errors->setWordWrap(true);
    m_errors->setStyleSheet("color: #D55E00;");
    m_errors->hide();
    m_counter->setToolTip(tr("Step of the lesson"));
    m_prev->setToolTip(tr("Back: the last piece revealed, else the previous step (Alt+←; ← in the presentation)"));
    m_next->setToolTip(tr("On: the answer to the question, the next piece of the chart, or the next step (Alt+→; → in "
                          "the presentation)"));
    m_end->setToolTip(tr("End the lesson and restore your own scenario"));
    m_prev->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    m_next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_prev);
    buttons->addStretch();
    buttons->addWidget(m_counter);
    buttons->addStretch();
    buttons->addWidget(m_next);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_lessonTitle);
    layout->addWidget(m_stepTitle);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_errors);
    layout->addLayout(buttons);
    layout->addWidget(m_end);

    connect(m_prev, &QPushButton::clicked, controller, &LessonController::back);
    connect(m_next, &QPushButton::clicked, controller, [controller] {
        if (controller->atEnd())
            controller->stop();
        else
            controller->advance();
    });
    connect(m_end, &QPushButton::clicked, controller, &LessonController::stop);
    connect(controller, &LessonController::stepChanged, this, &LessonPanel::refresh);
    connect(controller, &LessonController::progressChanged, this, &LessonPanel::refresh);
    connect(controller, &LessonController::started, this, &LessonPanel::refresh);
    connect(controller, &LessonController::finished, this, &LessonPanel::refresh);
    connect(controller->document(), &ScenarioDocument::analysisChanged, this, &LessonPanel::refresh);
    applyFonts();
    refresh();
}

QString LessonPanel::counterText() const { return m_counter->text(); }
QString LessonPanel::stepTitle() const { return m_stepTitle->text(); }

void LessonPanel::setCaptionMode(bool caption)
{
    if (m_caption == caption)
        return;
    m_caption = caption;
    m_lessonTitle->setVisible(!caption);
    m_end->setVisible(!caption);
    for (QWidget *w : {static_cast<QWidget *>(m_text), static_cast<QWidget *>(m_prev), static_cast<QWidget *>(m_next)})
        w->setFocusPolicy(caption ? Qt::NoFocus : Qt::StrongFocus);
    m_text->setVerticalScrollBarPolicy(caption ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
    m_text->setHorizontalScrollBarPolicy(caption ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
    layout()->setContentsMargins(caption ? QMargins(28, 10, 28, 6) : QMargins(9, 9, 9, 9));
    // The band takes the height its text needs; the chart above gets the rest.
    setSizePolicy(QSizePolicy::Preferred, caption ? QSizePolicy::Fixed : QSizePolicy::Preferred);
    if (!caption) {
        m_text->setMinimumHeight(0);
        m_text->setMaximumHeight(QWIDGETSIZE_MAX);
    }
    applyFonts();
    refresh();
}

bool LessonPanel::textFits() const
{
    // All of the text in its view, and the view clear of the buttons under it.
    const QTextDocument *doc = m_text->document();
    return doc->size().height() <= m_text->viewport()->height() + 1 &&
           m_text->geometry().bottom() < m_prev->geometry().top();
}

void LessonPanel::fitTextHeight()
{
    // In the caption band the text gets exactly the height it needs (no scroll bar on a projector), up to 30 % of
    // the window, so that the chart keeps the most. Where the text needs more (a question and its answer over a
    // long step in a 1024×768 room), the band's font shrinks until it fits, down to 14 pt, still legible at the
    // back of a room; below that the text scrolls.
    if (!m_caption)
        return;
    QTextDocument *doc = m_text->document();
    doc->setTextWidth(std::max(50, m_text->width() - 2 * m_text->frameWidth()));
    const int frame = m_text->frameWidth() * 2 + static_cast<int>(doc->documentMargin());
    // The text within 30 % of the window: with the title and the buttons the band then takes under half of it.
    int limit = QWIDGETSIZE_MAX;
    if (const QWidget *w = window(); w && w != this)
        limit = std::max(w->height() * 3 / 10, 3 * fontMetrics().height());
    QFont f = doc->defaultFont();
    for (qreal pt = kCaptionBodyPoints; pt >= kCaptionMinPoints; pt -= 1) {
        if (!qFuzzyCompare(f.pointSizeF(), pt)) {
            f.setPointSizeF(pt);
            doc->setDefaultFont(f);
        }
        if (doc->size().height() + frame <= limit)
            break;
    }
    const int h =
        std::max(std::min(static_cast<int>(std::ceil(doc->size().height())) + frame, limit), fontMetrics().height());
    if (h == m_text->height() && h == m_text->minimumHeight())
        return;
    m_text->setFixedHeight(h);
    // Called from the text's resize, i.e. while a layout is placing it: a geometry change asked for now is lost
    // with that pass, and the band would keep the height of a wrap that no longer holds (half a 1280×720 window
    // for four lines). Asked again once the pass is over.
    QMetaObject::invokeMethod(
        this,
        [this] {
            layout()->invalidate();
            updateGeometry();
        },
        Qt::QueuedConnection);
}

bool LessonPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_text && event->type() == QEvent::Resize)
        fitTextHeight(); // a new width wraps the text anew; the height that follows does not change the width
    return QWidget::eventFilter(watched, event);
}

void LessonPanel::applyFonts()
{
    QFont base = font();
    const qreal body = m_caption ? kCaptionBodyPoints : base.pointSizeF() * 1.1;
    QFont bodyFont = base;
    bodyFont.setPointSizeF(body);
    m_text->setFont(bodyFont);
    m_text->document()->setDefaultFont(bodyFont);
    QFont title = base;
    title.setBold(true);
    title.setPointSizeF(m_caption ? 26 : base.pointSizeF() * 1.3);
    m_stepTitle->setFont(title);
    QFont lesson = base;
    lesson.setPointSizeF(base.pointSizeF() * 1.1);
    m_lessonTitle->setFont(lesson);
    QFont small = base;
    small.setPointSizeF(m_caption ? 16 : base.pointSizeF());
    m_counter->setFont(small);
    m_prev->setFont(small);
    m_next->setFont(small);
    m_errors->setFont(small);
}

void LessonPanel::refresh()
{
    const LessonStep *step = m_controller->currentStep();
    setEnabled(step != nullptr);
    if (!step) {
        if (m_idleShown)
            return; // the panel follows every scenario change; with no lesson there is nothing to change
        m_idleShown = true;
        m_lessonTitle->setText(tr("No lesson running"));
        m_stepTitle->setText(tr("Choose a lesson from the Lessons menu."));
        m_html.clear();
        m_text->clear();
        m_counter->clear();
        m_errors->hide();
        return;
    }
    m_idleShown = false;
    const int i = m_controller->stepIndex();
    const int n = m_controller->stepCount();
    m_lessonTitle->setText(m_controller->lesson().title);
    m_stepTitle->setText(step->title);
    m_counter->setText(tr("%1 / %2").arg(i + 1).arg(n));
    const StepProgress &progress = m_controller->progress();
    m_prev->setEnabled(i > 0 || progress.revealed > 1);
    if (m_controller->questionOpen())
        m_next->setText(tr("Answer ▶"));
    else if (progress.revealed < static_cast<int>(step->reveal.size()))
        m_next->setText(tr("Reveal ▶"));
    else
        m_next->setText(m_controller->atEnd() ? tr("Finish ✓") : tr("Next ▶"));

    // A question comes first; the step's text (which gives the answer away) only once it is answered.
    LessonTextResult r;
    QString html;
    if (const std::optional<QuestionView> q = m_controller->currentQuestion()) {
        const bool open = m_controller->questionOpen();
        r.errors = q->errors;
        if (open || !m_caption)
            html = questionHtml(*q, open ? QuestionMode::Open : QuestionMode::Answered, m_caption);
        else // the band has no room for the question twice: the answer, then the text
            html = QStringLiteral("<p><b>✓ %1</b> %2</p>").arg(tr("Answer:"), q->answer.toHtmlEscaped());
        if (!open && !m_caption)
            html += QStringLiteral("<hr/>");
    }
    if (!m_controller->questionOpen()) {
        LessonTextResult text = m_controller->renderCurrent();
        html += QString::fromStdString(text.text);
        r.errors.insert(r.errors.end(), text.errors.begin(), text.errors.end());
    }
    const QString docError = m_controller->document()->analysisError();
    QStringList problems;
    if (!docError.isEmpty())
        problems << tr("The current scenario cannot be analysed (%1); the numbers are from the last valid one.")
                        .arg(docError);
    for (const std::string &e : r.errors)
        problems << QString::fromStdString(e);
    m_errors->setText(problems.join("\n"));
    m_errors->setVisible(!problems.isEmpty());
    if (html != m_html) {
        m_html = html;
        // Keep the reader's place when only the numbers changed (a slider drag re-renders on every tick).
        const QString key = m_controller->lesson().id + "#" + QString::number(i);
        const int scroll = key == m_shownStep ? m_text->verticalScrollBar()->value() : 0;
        m_shownStep = key;
        m_text->setHtml(html);
        m_text->verticalScrollBar()->setValue(scroll);
    }
    fitTextHeight();
}

} // namespace memwall::ui
