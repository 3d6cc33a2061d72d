"""Whether the controller accepts the device that answered its HELLO."""

from __future__ import annotations

from collections.abc import Collection

from drivers import messages as m


def refusal(
    kind: m.DeviceKind, port: str, approved: Collection[bytes], info: m.DeviceInfo
) -> tuple[m.RefusalReason, str] | None:
    """Why the device on ``port`` is refused (the reason code and a one-line detail), or
    None: the kind expected on that port, our protocol version, approved firmware."""
    if info.kind != kind:
        try:
            found = m.DeviceKind(info.kind).label
        except ValueError:
            found = f"unknown kind {info.kind}"
        return (
            m.RefusalReason.WRONG_KIND,
            f"expected a {kind.label} on {port}, found a {found}",
        )
    if info.protocol_version != m.PROTOCOL_VERSION:
        return (
            m.RefusalReason.PROTOCOL_VERSION,
            f"device speaks protocol {info.protocol_version}, "
            f"controller speaks {m.PROTOCOL_VERSION}",
        )
    if info.firmware_hash not in approved:
        return (
            m.RefusalReason.FIRMWARE_NOT_APPROVED,
            # The whole hash, to be copied into approved_firmware once it is approved.
            f"firmware {info.firmware_version} hash {info.firmware_hash.hex()} "
            "is not on the approved list",
        )
    return None
