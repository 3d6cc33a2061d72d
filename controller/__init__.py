"""Controller layer: game rules, the table state machine, daemon, journal, API and CLI."""
