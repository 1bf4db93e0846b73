"""Notifications that show their text literally: error bodies, replies, names and specs are untrusted, so they
are never parsed as markup and their control characters are made visible (``parley.display``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from parley.display import visible

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.notifications import SeverityLevel


def tell(node: DOMNode, message: str, *, title: str = "", severity: SeverityLevel = "information",
         timeout: float | None = None) -> None:
    """``node.notify`` without markup: what the message says is shown as it is."""
    node.app.notify(visible(message), title=visible(title, one_line=True), severity=severity, timeout=timeout,
                    markup=False)
