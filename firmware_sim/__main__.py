"""``python -m firmware_sim``: the firmware-sim command."""

from firmware_sim.cli import main

raise SystemExit(main())
