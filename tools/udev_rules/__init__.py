"""Check udev rules files as systemd-udevd reads them, and replay them on fake devices.

``python -m tools.udev_rules FILE...`` prints one ``FILE:LINE: message`` line per
problem and exits 2, or prints nothing and exits 0. It refuses what udevd would reject
or only warn about: an unknown key, an operator the key does not take, a missing or
doubled comma, a bad quote, a continuation at end of file.

:func:`evaluate` runs a parsed file against a :class:`FakeDevice` and reports what a
real device with those properties would get: symlinks, owner, group, mode, tags,
properties and sysfs attribute writes. It models only what a fake device can answer;
a rule that needs more (PROGRAM, IMPORT, substitutions...) raises :class:`NotEvaluable`.

The keys of udev(7) are in ``keys``, the parsed form in ``model``, the reading of one
token in ``scanner``, a file's parsing in ``parser`` with the checks of each token in
``checks``, and the replay in ``replay``. This is a development tool: it is not shipped
with the controller.
"""

from tools.udev_rules.keys import KEYS, AttrUse, KeySpec
from tools.udev_rules.model import Rule, RuleError, RulesFile, Token
from tools.udev_rules.parser import MAX_LINE_LENGTH, check_file, parse
from tools.udev_rules.replay import AttributeWrite, FakeDevice, NotEvaluable, Outcome, evaluate

__all__ = [
    "KEYS",
    "MAX_LINE_LENGTH",
    "AttrUse",
    "AttributeWrite",
    "FakeDevice",
    "KeySpec",
    "NotEvaluable",
    "Outcome",
    "Rule",
    "RuleError",
    "RulesFile",
    "Token",
    "check_file",
    "evaluate",
    "parse",
]
