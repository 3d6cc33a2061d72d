"""The console API's own errors: each message is one line."""

from __future__ import annotations

from controller.errors import TablectlError


class ApiError(TablectlError):
    """The API cannot start; the message is one line naming the path or the name."""


class RegistryError(TablectlError):
    """A console command the API cannot serve: no role, or a field it cannot build."""
