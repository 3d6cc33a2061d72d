"""``tablectl run``: the table's daemon. ``main``: the start-up, in order, its errors
as exit codes, and the signals; ``loop``: the table's one thread (``inbox``: its
queue); ``wiring``: the journal, the API's access, the drivers and the table of the
game in force; ``integrity``: the journal's full check after start and what a broken
chain stops; ``console``: what the daemon is handed for a simulated table;
``arguments``: the command's options. The daemon never imports the bench or the
simulators."""
