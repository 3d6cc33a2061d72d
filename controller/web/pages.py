"""The pages' HTML: a skeleton per page that static/app.js fills from the WebSocket's
updates. Every value put into the HTML is escaped; the pages carry no table data of
their own, so nothing on them predates the stream's guard (bridge.py)."""

from __future__ import annotations

from html import escape
from typing import Final

from controller.web.sessions import Session

TITLES: Final = {
    "scoreboard": "Scoreboard",
    "dealer": "Dealer",
    "floor": "Floor",
    "pit": "Pit",
    "login": "Log in",
}

# The sections each page's script fills, by element id.
BODIES: Final = {
    "scoreboard": """
<section id="board"><h2>Results this shoe</h2><div id="counts"></div>
<h3>Bead plate</h3><div id="bead" class="grid"></div>
<h3>Big road</h3><div id="road" class="grid"></div>
<div id="totals"></div></section>""",
    "dealer": """
<section id="prompt" class="prompt"></section>
<section><h2>Waiting for</h2><div id="state"></div><div id="halts"></div></section>
<section><h2>Layout</h2><div id="wagers"></div><div id="hands"></div></section>
<section><h2>Last result</h2><div id="result"></div></section>
<section><h2>Commands</h2><div id="commands"></div><div id="answer" role="status"></div></section>
<section><h2>Refusals</h2><div id="refusals"></div></section>""",
    "floor": """
<section id="shuffle-alert" class="alert" role="alert" hidden></section>
<section id="prompt" class="prompt"></section>
<section><h2>Table</h2><div id="state"></div><div id="devices"></div></section>
<section><h2>Faults and what clears them</h2><div id="halts"></div></section>
<section><h2>Commands</h2><div id="commands"></div><div id="answer" role="status"></div></section>
<section><h2>Journal</h2><button id="verify" class="big">journal verify</button>
<pre id="verdict"></pre><div id="recent"></div></section>
<section><h2>Refusals</h2><div id="refusals"></div></section>""",
    "pit": """
<section><h2>Table</h2><div id="state"></div><div id="devices"></div></section>
<section><h2>Shift</h2><div id="shift"></div></section>
<section><h2>Halts</h2><div id="halts"></div></section>
<section><h2>Refusals</h2><div id="refusals"></div></section>""",
}

# /dealer's panel for a table played by hand on simulated devices (panel.py).
PANEL: Final = """
<section id="panel"><h2>Simulated devices</h2><div class="cmd">
<button type="button" data-panel="draw">draw a card</button>
<button type="button" data-panel="shuffle">shuffle</button>
<button type="button" data-panel="insert_hole_card">insert hole card</button></div>
<div class="cmd"><button type="button" data-panel="unplug">unplug</button>
<select id="unplug-device"><option>shoe</option><option>shuffler</option><option>reader</option>
</select><button type="button" data-panel="jam">jam shuffler</button>
<button type="button" data-panel="face_up">next card face up</button>
<button type="button" data-panel="reader_malfunction">reader malfunction</button></div>
<div id="panel-answer" role="status"></div></section>"""


def _nav(session: Session | None) -> str:
    links = ['<a href="/scoreboard">Scoreboard</a>', '<a href="/pit">Pit</a>']
    if session is None:
        links.append('<a href="/login">Log in</a>')
        return " ".join(links)
    links.insert(0, f'<a href="/{session.role}">{TITLES[session.role]}</a>')
    who = escape(f"{session.login} ({session.role})")
    logout = (
        '<form method="post" action="/logout" class="inline">'
        f'<input type="hidden" name="csrf" value="{escape(session.csrf)}">'
        f'<button type="submit">Log out {who}</button></form>'
    )
    return " ".join(links) + " " + logout


def page(
    name: str, session: Session | None, body: str | None = None, script: str = "/static/app.js"
) -> str:
    """The page's HTML; ``script`` fills it (tablectl floor's /pit has its own)."""
    csrf = escape(session.csrf) if session else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="{csrf}">
<title>{TITLES.get(name, name)} · tablectl</title>
<link rel="stylesheet" href="/static/style.css"></head>
<body data-page="{escape(name)}" data-seq="0">
<header><h1>{TITLES.get(name, name)}</h1><nav>{_nav(session)}</nav>
<span id="link" class="link">connecting…</span></header>
<main>{body if body is not None else BODIES[name]}</main>
<script src="/static/dom.js"></script>
<script src="{escape(script)}"></script></body></html>"""


def login_page(message: str = "", next_page: str = "") -> str:
    note = f'<p id="error" class="error">{escape(message)}</p>' if message else ""
    form = f"""{note}
<form method="post" action="/login" class="login">
<input type="hidden" name="next" value="{escape(next_page)}">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password"
 required></label>
<button type="submit" class="big">Log in</button></form>"""
    return page("login", None, form)


def denied_page(session: Session | None, needed: str) -> str:
    text = f"This page needs a {needed} login."
    return page("login", session, f'<p id="error" class="error">{escape(text)}</p>')
