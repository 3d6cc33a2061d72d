"""The journal's one error."""

from __future__ import annotations


class JournalError(Exception):
    """The journal cannot be used; the message is one line naming the file."""
