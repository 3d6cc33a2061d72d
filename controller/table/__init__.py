"""The table state machines: device events and console commands in, each game's
procedure enforced, every input and decision recorded."""
