"""Shuffle-quality monitoring as pure functions: orders in, statistics and verdicts out."""
