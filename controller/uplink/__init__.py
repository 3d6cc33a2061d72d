"""The table's uplink to the floor: every journal row to an MQTT broker (docs/uplink.md)."""
