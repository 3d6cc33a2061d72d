"""The data behind the table's web pages, derived from its journal entries alone: the
players' results board (``scoreboard``: bead plate and big road, drawn by ``roads``),
the pit supervisor's view of a shift (``pit``), and the journal read back to rebuild
them when the web process starts (``history``). docs/scoreboard.md."""
