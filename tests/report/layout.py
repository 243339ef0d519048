"""Layout checks on drawn matplotlib figures, measured after the figure is laid out (constrained
layout runs at draw time): tick labels that overlap each other, and legends drawn over data."""

from __future__ import annotations

import itertools

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.transforms import Bbox


def _drawn(fig: Figure):
    fig.canvas.draw()  # lays the figure out as it is saved
    return fig.canvas.get_renderer()


def overlapping_labels(fig: Figure) -> list[tuple[str, str]]:
    """Pairs of visible tick labels of one axis of one axes whose boxes overlap."""
    renderer = _drawn(fig)
    found = []
    for ax in fig.axes:
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            shown = [t for t in labels if t.get_visible() and t.get_text().strip()]
            boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown]
            for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
                if box_a.overlaps(box_b):
                    found.append((a, b))
    return found


def _data_points(ax: Axes) -> np.ndarray:
    """Display coordinates of the data an axes draws: line vertices (plotted in data
    coordinates), scatter points and the far end of each bar."""
    points = [np.empty((0, 2))]
    for line in ax.get_lines():
        if line.get_transform() == ax.transData and line.get_xydata().size:  # not axhline
            points.append(ax.transData.transform(line.get_xydata()))
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets())
        if offsets.size and collection.get_offset_transform() == ax.transData:
            points.append(ax.transData.transform(offsets))
    for patch in ax.patches:
        if isinstance(patch, Rectangle):  # a bar: its far corners in display coordinates
            box = patch.get_bbox().transformed(patch.get_data_transform())
            points.append(np.array([[box.x1, box.y1], [box.x1, box.y0], [box.x0, box.y1]]))
    out = np.vstack(points)
    return out[np.isfinite(out).all(axis=1)]


def legends_over_data(fig: Figure) -> list[str]:
    """Legends (by their entries) whose box holds a data point of any axes of the figure."""
    renderer = _drawn(fig)
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    found = []
    for legend in legends:
        box: Bbox = legend.get_window_extent(renderer)
        for ax in fig.axes:
            points = _data_points(ax)
            inside = (
                (points[:, 0] > box.x0)
                & (points[:, 0] < box.x1)
                & (points[:, 1] > box.y0)
                & (points[:, 1] < box.y1)
            )
            if inside.any():
                found.append(", ".join(t.get_text() for t in legend.get_texts()))
                break
    return found
