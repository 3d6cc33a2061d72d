"""The rules of each game as pure functions: no I/O, no clocks, no state machines."""
