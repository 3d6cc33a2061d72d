"""``tablectl floor``: the floor's subscriber that follows every table's journal and
status on the MQTT broker and serves the pit across tables (docs/floor.md)."""
