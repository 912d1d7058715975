#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QSlider;

namespace memwall::ui {

/// A logarithmic slider beside a spin box for the exact value: batch 1…4096, lengths 1…131072, what-if ×0.25…×8.
/// The slider maps its positions to equal ratios; the spin box takes any value in range. valueChanged() fires only
/// for user edits, never for setValue(), so the document can write values back without an echo.
class LogSlider : public QWidget
{
    Q_OBJECT
public:
    /// `decimals` 0 makes an integer control (values are rounded).
    LogSlider(double minimum, double maximum, int decimals, QWidget *parent = nullptr);

    double value() const { return m_value; }
    /// Sets both parts without emitting valueChanged().
    void setValue(double v);
    /// Lets the spin box take values beyond the slider's span (the slider then rests at its end).
    void setAcceptedRange(double lowest, double highest);
    void setPrefix(const QString &prefix);
    void setSuffix(const QString &suffix);
    /// One tooltip for the slider and the spin box.
    void setToolTipText(const QString &text);

    QSlider *slider() const { return m_slider; }
    QDoubleSpinBox *spinBox() const { return m_spin; }

    /// Position (0…kSteps) <-> value mapping, exposed for tests.
    static constexpr int kSteps = 1000;
    int positionFor(double v) const;
    double valueAt(int position) const;

signals:
    void valueChanged(double value);

private:
    void userSet(double v);
    double clampRound(double v) const;

    QSlider *m_slider;
    QDoubleSpinBox *m_spin;
    double m_min, m_max;        ///< the slider's span
    double m_lowest, m_highest; ///< what the spin box accepts
    int m_decimals;
    double m_value;
};

} // namespace memwall::ui
