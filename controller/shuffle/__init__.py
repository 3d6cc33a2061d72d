"""The shuffle-quality monitor: pure functions over the cards a table journals, orders in,
statistics and verdicts out (GLI-29 §2.1)."""
