#pragma once

#include <QLabel>

namespace memwall::ui {

/// A label laid over the whole of a widget so that what the widget shows cannot be read: while a lesson's question
/// is open, the chart that answers it (ChartView::setCover()) and, in the window, the headline and the operator
/// table (LessonActions). The cover follows the widget's size and takes its clicks.
class CoverLabel : public QLabel
{
    Q_OBJECT
public:
    /// Shows `text` over `host`, making the cover on first use; an empty text hides it. Returns the cover (nullptr
    /// for an empty text).
    static CoverLabel *cover(QWidget *host, const QString &text);
    /// The cover shown over `host`, or nullptr.
    static CoverLabel *shownOver(const QWidget *host);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit CoverLabel(QWidget *host);
};

} // namespace memwall::ui
