"""The link layer, shared by host and device (``core.Link``): its parameters and counters
(``config``), frame authentication (``auth``), the sending half of a session
(``sender``) and the trace of recent frames (``trace``)."""

from drivers.link.auth import mac
from drivers.link.config import LinkConfig, LinkStats
from drivers.link.core import Link

__all__ = ["Link", "LinkConfig", "LinkStats", "mac"]
