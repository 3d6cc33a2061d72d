"""The table's configuration: one TOML file per table (``tablectl run --config FILE``),
validated completely before any device, journal or socket is opened.

Every mistake ends in one ``ConfigError`` line naming the file and the key by its
dotted path, e.g. ``table.toml: devices.reader.usb: expected usb:VID:PID[:SERIAL], got
'usb:zz'``. The ``[rules]`` table is the game's Rules Submission, checked by the game's
own ``from_dict``, so a value the chapter forbids is refused with its section there and
nowhere else. The keys, their types and defaults are listed in docs/config.md.

``settings``: the validated result; ``loading``: the file, whole; ``sections``: each
section's keys; ``values``: reading one value of the right type.
"""

from controller.config.loading import load_config, parse_config
from controller.config.sections import (
    DEFAULT_GAMING_DAY_STARTS,
    DEFAULT_JOURNAL,
    DEFAULT_LINK_TIMEOUT_MS,
    DEFAULT_RUNTIME_DIR,
    DEFAULT_SOCKET_GROUPS,
    LINK_TIMEOUT_MS,
)
from controller.config.settings import (
    Account,
    ApiSettings,
    Config,
    ConfigError,
    ConfigUnreadable,
    DeviceSettings,
    Game,
    JournalSettings,
    SerialDevice,
    ShuffleSettings,
    SocketAccess,
    TableSettings,
    UsbDevice,
)
from controller.config.values import MAX_ID

__all__ = [
    "DEFAULT_GAMING_DAY_STARTS",
    "DEFAULT_JOURNAL",
    "DEFAULT_LINK_TIMEOUT_MS",
    "DEFAULT_RUNTIME_DIR",
    "DEFAULT_SOCKET_GROUPS",
    "LINK_TIMEOUT_MS",
    "MAX_ID",
    "Account",
    "ApiSettings",
    "Config",
    "ConfigError",
    "ConfigUnreadable",
    "DeviceSettings",
    "Game",
    "JournalSettings",
    "SerialDevice",
    "ShuffleSettings",
    "SocketAccess",
    "TableSettings",
    "UsbDevice",
    "load_config",
    "parse_config",
]
