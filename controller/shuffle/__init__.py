"""The shuffle-quality monitor: pure functions over the cards a table journals (GLI-29 §2.1)."""
