#include "ui/controls/logslider.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>

#include <algorithm>
#include <cmath>

namespace memwall::ui {

LogSlider::LogSlider(double minimum, double maximum, int decimals, QWidget *parent)
    : QWidget(parent), m_slider(new QSlider(Qt::Horizontal, this)), m_spin(new QDoubleSpinBox(this)), m_min(minimum),
      m_max(maximum), m_lowest(minimum), m_highest(maximum), m_decimals(decimals), m_value(minimum)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_slider->setRange(0, kSteps);
    m_slider->setPageStep(kSteps / 12);
    m_slider->setSingleStep(std::max(1, kSteps / 120));
    m_spin->setRange(minimum, maximum);
    m_spin->setDecimals(decimals);
    m_spin->setKeyboardTracking(false);
    m_spin->setAccelerated(true);
    m_spin->setMinimumWidth(decimals == 0 ? 80 : 70);
    m_spin->setAlignment(Qt::AlignRight);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_spin);

    connect(m_slider, &QSlider::valueChanged, this, [this](int pos) {
        double v = valueAt(pos);
        const int here = positionFor(m_value);
        if (v == m_value && pos != here) // a keyboard step too small to change a rounded value: take the next one
            v = clampRound(m_value + (pos > here ? 1 : -1) * std::pow(10.0, -m_decimals));
        userSet(v);
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) { userSet(v); });
    setValue(minimum);
}

void LogSlider::setAcceptedRange(double lowest, double highest)
{
    m_lowest = std::min(lowest, m_min);
    m_highest = std::max(highest, m_max);
    const QSignalBlocker block(m_spin);
    m_spin->setRange(m_lowest, m_highest);
}

double LogSlider::clampRound(double v) const
{
    v = std::clamp(v, m_lowest, m_highest);
    const double scale = std::pow(10.0, m_decimals);
    return std::round(v * scale) / scale;
}

int LogSlider::positionFor(double v) const
{
    const double t = std::log(std::clamp(v, m_min, m_max) / m_min) / std::log(m_max / m_min);
    return static_cast<int>(std::lround(t * kSteps));
}

double LogSlider::valueAt(int position) const
{
    const double t = static_cast<double>(std::clamp(position, 0, kSteps)) / kSteps;
    return clampRound(std::clamp(m_min * std::pow(m_max / m_min, t), m_min, m_max));
}

void LogSlider::setValue(double v)
{
    v = clampRound(v);
    if (v == m_value && m_spin->value() == v) // unchanged: no repaint of the slider and spin box
        return;
    m_value = v;
    const QSignalBlocker b1(m_slider);
    const QSignalBlocker b2(m_spin);
    m_slider->setValue(positionFor(m_value));
    m_spin->setValue(m_value);
}

void LogSlider::userSet(double v)
{
    v = clampRound(v);
    if (v == m_value)
        return;
    m_value = v;
    // Keep the other half in step without re-entering.
    const QSignalBlocker b1(m_slider);
    const QSignalBlocker b2(m_spin);
    if (positionFor(v) != m_slider->value() && !m_slider->isSliderDown())
        m_slider->setValue(positionFor(v));
    m_spin->setValue(v);
    emit valueChanged(v);
}

void LogSlider::setPrefix(const QString &prefix) { m_spin->setPrefix(prefix); }
void LogSlider::setSuffix(const QString &suffix) { m_spin->setSuffix(suffix); }

void LogSlider::setToolTipText(const QString &text)
{
    setToolTip(text);
    m_slider->setToolTip(text);
    m_spin->setToolTip(text);
}

} // namespace memwall::ui
