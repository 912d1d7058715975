#pragma once

#include "core/measure/measure.h"

#include <QDialog>

#include <atomic>
#include <optional>
#include <thread>

class QDialogButtonBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace memwall::ui {

class MeasuredPoints;
class ScenarioDocument;

/// "Measure this computer": runs core::measureMachine on a worker thread (memory bandwidth with a STREAM-style
/// triad, then matrix-vector and matrix-matrix kernels) with a progress bar and Cancel, within a budget of at most
/// 10 s. When it is done, "Show on the roofline" makes the measured machine the document's device (undoable) and
/// hands the measured kernels to `points` so the roofline can plot them.
class MeasureDialog : public QDialog
{
    Q_OBJECT
public:
    /// `points` may be nullptr (the kernels are then not kept).
    MeasureDialog(ScenarioDocument *doc, MeasuredPoints *points, QWidget *parent = nullptr);
    ~MeasureDialog() override;

    /// Budget and sizes of the next run; the budget is clamped to (0, 10] s.
    void setOptions(const core::MeasureOptions &options);
    const core::MeasureOptions &options() const { return m_options; }

    bool isRunning() const { return m_thread.joinable(); }
    bool hasResult() const { return m_result.has_value(); }
    const core::MeasureResult &result() const { return *m_result; }

    QProgressBar *progressBar() const { return m_progress; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *showButton() const { return m_show; }
    QString summaryText() const;

public slots:
    /// Starts a run (no-op while one runs).
    void start();
    /// Asks the running measurement to stop after its current repetition.
    void cancel();
    /// Sets "This computer" as the device and keeps the kernels; closes the dialog.
    void showOnRoofline();
    void reject() override;

signals:
    /// The run ended (completed or cancelled); result() holds what was measured.
    void measured(bool cancelled);

private:
    void onProgress(double progress01, const QString &stage);
    void onFinished(const core::MeasureResult &r);
    void join();
    void updateIntro();

    ScenarioDocument *m_doc;
    MeasuredPoints *m_points;
    core::MeasureOptions m_options;
    std::thread m_thread;
    std::atomic<bool> m_cancelRequested{false};
    std::optional<core::MeasureResult> m_result;

    QLabel *m_intro;
    QLabel *m_stage;
    QProgressBar *m_progress;
    QLabel *m_summary;
    QPushButton *m_start;
    QPushButton *m_cancel;
    QPushButton *m_show;
    QPushButton *m_close;
};

} // namespace memwall::ui
