"""Matplotlib pictures of MemWall results, for notebooks: ``memwall.plot.roofline(memwall.analyze(...))``."""


def roofline(analysis, ax=None, title=None):
    """The roofline of an analysis: the device's matmul peak and its memory slope (the ideal or achievable one the
    analysis used), and every operator at its arithmetic intensity and attained FLOP/s (total FLOPs over time),
    sized by its share of the step's time. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    hw = analysis["hardware"]
    peak, bw = hw["peak_flops"], hw["bandwidth_bytes_per_s"]
    ops = [o for o in analysis["operators"] if o["bytes"] > 0 and o["flops"] > 0 and o["time_s"] > 0]
    intensities = [o["arithmetic_intensity"] for o in ops] + [peak / bw]
    lo, hi = min(intensities) / 4, max(intensities) * 4
    ridge = peak / bw
    ax.loglog([lo, ridge, hi], [lo * bw, peak, peak], color="black", lw=2, label="roofline")
    ax.axvline(ridge, color="grey", ls=":", lw=1)
    total = sum(o["time_s"] for o in ops) or 1.0
    for o in ops:
        ax.scatter(o["arithmetic_intensity"], o["flops"] / o["time_s"], s=20 + 400 * o["time_s"] / total,
                   alpha=0.7, label=o["name"])
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("attained FLOP/s")
    ax.set_title(title or f"{analysis['model']['id']} on {analysis['hardware']['id']}: ridge {ridge:.0f} FLOP/byte")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the plot, never over a point
    ax.grid(True, which="both", alpha=0.2)
    return ax
