#include "ui/lessons/lessonhandout.h"

#include "ui/charts/chartbase.h"
#include "ui/charts/chartregistry.h"
#include "ui/document/scenariodocument.h"
#include "ui/export/chartexporter.h"
#include "ui/lessons/lessoncontroller.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFileInfo>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>

#include <map>

namespace memwall::ui {

namespace {

constexpr QSize kPage{1280, 720}; ///< logical pixels at layoutDpi(): a 16:9 slide of 960×540 pt
constexpr qreal kMargin = 36;
constexpr qreal kHeader = 92; ///< lesson and step titles
constexpr qreal kFooter = 30;

/// Draws `html` in `box` at the largest body size from `points` down to `minPoints` at which it fits; returns the
/// height it takes.
qreal drawText(QPainter &p, const QRectF &box, const QString &html, qreal points, const Theme &theme,
               qreal minPoints = 9)
{
    QTextDocument doc;
    doc.setDocumentMargin(0);
    doc.setTextWidth(box.width());
    doc.setDefaultStyleSheet(QStringLiteral("p { margin-bottom: 8px; }"));
    for (qreal pt = points;; pt -= 0.5) {
        QFont f = theme.labelFont();
        f.setPointSizeF(pt);
        doc.setDefaultFont(f);
        doc.setHtml(html);
        if (doc.size().height() <= box.height() || pt <= minPoints)
            break;
    }
    p.save();
    p.translate(box.topLeft());
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.palette.setColor(QPalette::Text, theme.foreground);
    ctx.clip = QRectF(QPointF(0, 0), box.size());
    p.setClipRect(ctx.clip);
    doc.documentLayout()->draw(&p, ctx);
    p.restore();
    return std::min(doc.size().height(), box.height());
}

/// The body text size of a handout question, in points.
constexpr qreal kHandoutTextPt = 10;

/// What a handout question prints: its number and step title, then its html.
QString handoutHtml(const HandoutQuestion &q)
{
    return QStringLiteral("<p><b>%1. %2</b></p>").arg(q.number).arg(q.stepTitle.toHtmlEscaped()) + q.html;
}

/// The height `html` takes at `width` points in the handout's body size (as drawText() lays it out).
qreal textHeight(const QString &html, qreal width, const Theme &theme)
{
    QTextDocument doc;
    doc.setDocumentMargin(0);
    doc.setTextWidth(width);
    doc.setDefaultStyleSheet(QStringLiteral("p { margin-bottom: 8px; }"));
    QFont f = theme.labelFont();
    f.setPointSizeF(kHandoutTextPt);
    doc.setDefaultFont(f);
    doc.setHtml(html);
    return doc.size().height();
}

/// Places the questions of `all` on pages of `layout` top to bottom: each its measured text, then (on the handout)
/// at least kWritingRoomMm to write; a question that does not fit starts a new page, and a page's spare height is
/// shared among its writing rooms. The key packs its questions with a small gap and no room.
std::vector<std::vector<HandoutQuestion>> paginate(std::vector<HandoutQuestion> all, const QPageLayout &layout,
                                                   bool key, const Theme &theme)
{
    const QSizeF page = layout.fullRect(QPageLayout::Point).size();
    const qreal left = kHandoutMarginPt, width = page.width() - 2 * kHandoutMarginPt;
    const qreal top = kHandoutMarginPt + kHandoutHeadPt, bottom = page.height() - kHandoutMarginPt;
    const qreal room = key ? 0 : kWritingRoomMm * 72 / 25.4, gap = 12;
    const int perPage = key ? 3 * kQuestionsPerPage : kQuestionsPerPage;
    std::vector<std::vector<HandoutQuestion>> pages;
    qreal y = bottom + 1;
    const auto closePage = [&] {
        if (pages.empty() || key || pages.back().empty())
            return;
        auto &qs = pages.back();
        const qreal share = std::max<qreal>(0, bottom - (qs.back().writingRect.bottom() + gap)) / qs.size();
        qreal shift = 0;
        for (HandoutQuestion &q : qs) {
            q.textRect.translate(0, shift);
            q.writingRect.translate(0, shift);
            q.writingRect.setHeight(q.writingRect.height() + share);
            shift += share;
        }
    };
    for (HandoutQuestion &q : all) {
        // A question taller than a page gets a page of its own, its text cut to what is left above the room.
        const qreal text = std::min(textHeight(handoutHtml(q), width, theme), bottom - top - room);
        if (pages.empty() || static_cast<int>(pages.back().size()) >= perPage || y + text + room > bottom) {
            closePage();
            pages.emplace_back();
            y = top;
        }
        q.textRect = QRectF(left, y, width, text);
        q.writingRect = QRectF(left, y + text, width, room);
        y += text + room + gap;
        pages.back().push_back(std::move(q));
    }
    closePage();
    return pages;
}

struct PageWriter
{
    QPainter &painter;
    const Lesson &lesson;
    const HandoutOptions &options;

    void header(int step, const QString &title)
    {
        const Theme &t = options.theme;
        painter.fillRect(QRectF(QPointF(0, 0), QSizeF(kPage)), t.background);
        QFont small = t.labelFont();
        small.setPointSizeF(12);
        QFont big = t.titleFont();
        big.setPointSizeF(22);
        big.setBold(true);
        painter.setPen(t.foreground);
        painter.setFont(small);
        painter.drawText(QRectF(kMargin, 14, kPage.width() - 2 * kMargin, 24), Qt::AlignLeft | Qt::AlignVCenter,
                         lesson.title);
        painter.setFont(big);
        painter.drawText(QRectF(kMargin, 40, kPage.width() - 2 * kMargin, 44), Qt::AlignLeft | Qt::AlignVCenter,
                         QStringLiteral("%1. %2").arg(step + 1).arg(title));
        painter.setFont(small);
        QColor weak = t.foreground;
        weak.setAlphaF(0.6);
        painter.setPen(weak);
        const QString foot =
            QObject::tr("MemWall · lesson “%1” · step %2 of %3 · every number computed from the step's scenario")
                .arg(lesson.id)
                .arg(step + 1)
                .arg(lesson.steps.size());
        painter.drawText(QRectF(kMargin, kPage.height() - kFooter, kPage.width() - 2 * kMargin, kFooter - 6),
                         Qt::AlignLeft | Qt::AlignVCenter, foot);
    }

    void chart(ChartBase &c, const QRectF &box)
    {
        ExportOptions eo;
        eo.size = box.size().toSize();
        eo.theme = options.theme;
        painter.save();
        painter.translate(box.topLeft());
        paintChart(c, &painter, eo);
        painter.restore();
    }
};

} // namespace

const Lesson *findLesson(const std::vector<Lesson> &lessons, const QString &id)
{
    for (const Lesson &l : lessons)
        if (l.id == id)
            return &l;
    return nullptr;
}

std::optional<Handout> buildHandout(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets,
                                    const HandoutOptions &options, QString *error)
{
    ScenarioDocument doc(std::move(presets));
    LessonController controller(&doc);
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!controller.start(lesson))
        return fail(controller.lastError());
    Handout h;
    h.title = options.answerKey ? QObject::tr("%1 — answer key").arg(lesson.title)
                                : QObject::tr("%1 — questions").arg(lesson.title);
    h.layout = QPageLayout(QPageSize(options.paper), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0));
    int number = 0;
    std::vector<HandoutQuestion> all;
    for (int i = 0; i < controller.stepCount(); ++i) {
        if (i != controller.stepIndex() && !controller.goToStep(i))
            return fail(controller.lastError());
        const std::optional<QuestionView> view = controller.currentQuestion();
        if (!view)
            continue;
        HandoutQuestion q;
        q.number = ++number;
        q.stepTitle = controller.currentStep()->title;
        q.given = view->given;
        q.html = questionHtml(*view, options.answerKey ? QuestionMode::Answered : QuestionMode::Blank);
        if (options.answerKey)
            q.answer = view->answer;
        all.push_back(std::move(q));
    }
    if (all.empty())
        return fail(QObject::tr("the lesson \u201c%1\u201d asks no question").arg(lesson.id));
    h.pages = paginate(std::move(all), h.layout, options.answerKey, options.theme);
    return h;
}

namespace {

/// Paints `h` into `pdf` (already set to its page layout, 72 dpi: a unit is a point).
bool paintHandout(const Handout &h, QPdfWriter &pdf, const Theme &theme, QString *why)
{
    QPainter painter;
    if (!painter.begin(&pdf)) {
        *why = QObject::tr("cannot start a PDF");
        return false;
    }
    const QSizeF page = h.layout.fullRect(QPageLayout::Point).size();
    const qreal margin = kHandoutMarginPt;
    QColor weak = theme.foreground;
    weak.setAlphaF(0.5);
    for (std::size_t p = 0; p < h.pages.size(); ++p) {
        if (p > 0 && !pdf.newPage()) {
            painter.end();
            *why = QObject::tr("cannot add page %1").arg(p + 1);
            return false;
        }
        painter.fillRect(QRectF(QPointF(0, 0), page), theme.background);
        QFont title = theme.titleFont();
        title.setPointSizeF(15);
        title.setBold(true);
        painter.setFont(title);
        painter.setPen(theme.foreground);
        // The title on its own lines (a long lesson title wraps), under the name and page line: side by side they
        // overlapped.
        painter.drawText(QRectF(margin, margin - 10, page.width() - 2 * margin, kHandoutHeadPt + 6),
                         Qt::AlignLeft | Qt::TextWordWrap, h.title);
        QFont small = theme.labelFont();
        small.setPointSizeF(10);
        painter.setFont(small);
        painter.drawText(QRectF(margin, margin - 28, page.width() - 2 * margin, 16), Qt::AlignRight,
                         QObject::tr("Name: ____________________   page %1 of %2").arg(p + 1).arg(h.pages.size()));
        // Each question where paginate() placed it: its text, then its room to write, ruled every 22 pt.
        for (const HandoutQuestion &q : h.pages[p]) {
            drawText(painter, q.textRect, handoutHtml(q), kHandoutTextPt, theme, 8);
            painter.setPen(QPen(weak, 0.5));
            for (qreal y = q.writingRect.top() + 22; y <= q.writingRect.bottom(); y += 22)
                painter.drawLine(QPointF(q.writingRect.left(), y), QPointF(q.writingRect.right(), y));
        }
    }
    if (!painter.end()) {
        *why = QObject::tr("cannot finish the PDF");
        return false;
    }
    return true;
}

bool writeHandoutPdf(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets, const QString &path,
                     const HandoutOptions &options, QString *error, int *pages)
{
    QString why;
    const std::optional<Handout> h = buildHandout(lesson, std::move(presets), options, &why);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setResolution(72);
    pdf.setCreator(QStringLiteral("MemWall"));
    if (h) {
        pdf.setTitle(h->title);
        if (!pdf.setPageLayout(h->layout))
            why = QObject::tr("cannot set up a PDF page of %1").arg(h->layout.pageSize().name());
    }
    if (!h || !why.isEmpty() || !paintHandout(*h, pdf, options.theme, &why)) {
        if (error)
            *error = QObject::tr("%1: %2").arg(path, why);
        return false;
    }
    if (pages)
        *pages = static_cast<int>(h->pages.size());
    return writeAtomically(path, buffer.data(), error);
}

} // namespace

bool writeLessonPdf(const Lesson &lesson, std::shared_ptr<const core::PresetLibrary> presets, const QString &path,
                    const HandoutOptions &options, QString *error, int *pages)
{
    const auto fail = [error, &path](const QString &why) {
        if (error)
            *error = QObject::tr("%1: %2").arg(path, why);
        return false;
    };
    if (QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) != 0)
        return fail(QObject::tr("a lesson is written as PDF; use a .pdf file name"));
    if (options.questionsOnly)
        return writeHandoutPdf(lesson, std::move(presets), path, options, error, pages);

    ScenarioDocument doc(std::move(presets));
    LessonController controller(&doc);
    if (!controller.start(lesson))
        return fail(controller.lastError());
    std::map<QString, std::unique_ptr<ChartBase>> charts; // one of each chart the lesson shows

    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setResolution(layoutDpi());
    pdf.setCreator(QStringLiteral("MemWall"));
    pdf.setTitle(lesson.title);
    const QSizeF points = pdfPageSize(kPage);
    const QPageLayout layout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                             QPageLayout::Portrait, QMarginsF(0, 0, 0, 0), QPageLayout::Point);
    if (!pdf.setPageLayout(layout))
        return fail(QObject::tr("cannot set up a PDF page of %1×%2 points").arg(points.width()).arg(points.height()));
    QPainter painter;
    if (!painter.begin(&pdf))
        return fail(QObject::tr("cannot start a PDF"));
    const QRect device = pdf.pageLayout().paintRectPixels(pdf.resolution());
    const qreal sx = device.width() / qreal(kPage.width()), sy = device.height() / qreal(kPage.height());

    PageWriter page{painter, lesson, options};
    int count = 0;
    for (int i = 0; i < controller.stepCount(); ++i) {
        if (i != controller.stepIndex() && !controller.goToStep(i)) {
            painter.end();
            return fail(controller.lastError());
        }
        controller.completeStep(); // answered, every piece of its build-up drawn
        const LessonStep &step = *controller.currentStep();
        const std::optional<QuestionView> question = controller.currentQuestion();
        if (count > 0 && !pdf.newPage()) {
            painter.end();
            return fail(QObject::tr("cannot add page %1").arg(count + 1));
        }
        ++count;
        painter.save();
        painter.scale(sx, sy);
        page.header(i, step.title);
        const qreal top = kHeader, bottom = kPage.height() - kFooter - 8;
        {
            auto &chart = charts[step.chart];
            if (!chart) {
                chart = createChart(step.chart, &doc);
                chart->setTheme(options.theme);
            }
            chart->setReveal(controller.currentReveal());
            chart->refresh();
            const qreal chartWidth = 820;
            page.chart(*chart, QRectF(kMargin - 12, top, chartWidth, bottom - top));
            QString html;
            if (question)
                html += questionHtml(*question, QuestionMode::Answered) + QStringLiteral("<hr/>");
            html += QString::fromStdString(controller.renderCurrent().text);
            const qreal left = kMargin + chartWidth;
            drawText(painter, QRectF(left, top + 8, kPage.width() - kMargin - left, bottom - top - 8), html, 13,
                     options.theme);
        }
        painter.restore();
    }
    if (!painter.end())
        return fail(QObject::tr("cannot finish the PDF"));
    if (pages)
        *pages = count;
    return writeAtomically(path, buffer.data(), error);
}

} // namespace memwall::ui
