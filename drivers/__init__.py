"""Device layer: transport -> codec -> link -> typed device drivers (no game knowledge)."""
