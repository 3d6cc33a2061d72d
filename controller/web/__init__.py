"""``tablectl web``: the dealer's, floorperson's, pit's and players' pages in the
browser (docs/web.md). The web process talks to the daemon only through its Unix
sockets (docs/api.md), as each login's role allows; it holds no device and never
writes the journal."""
