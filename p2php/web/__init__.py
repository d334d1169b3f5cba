"""``p2php web``: play in the browser — a local page that drives one peer through the bridge.

The page (``p2php/web/static``: plain HTML, CSS and JavaScript, no build step) talks the bridge's JSON
messages (docs/bridge.md) over a WebSocket to this process, which runs the peer: its keys, the dealing and the
audit never reach the browser, which sees only its own seat's view, like any bridge client. The server
(:mod:`p2php.web.server`) serves those files and that WebSocket on one loopback port.
"""

from __future__ import annotations

import html
import os
import shutil
import sys
import tempfile
import webbrowser
from functools import partial
from pathlib import Path

import trio

from p2php.threads import in_thread

__all__ = ["main"]


def launch_file(url: str) -> Path:
    """A page only this user may read that sends the browser on to ``url``, in a fresh folder of its own (mode 0700).

    The browser is started with this file's name on its command line, not ``url``: every user of the machine reads
    every process's command line (``ps``, ``/proc/PID/cmdline``), and ``url`` holds the key that plays this seat and
    has this process write files where its user may (red-team rt10-web: another user read it from the browser's
    command line and had a transcript written into this user's private folder). As Jupyter's redirect file.
    """
    folder = Path(tempfile.mkdtemp(prefix="p2php-web-"))  # (0700, made for us alone)
    path = folder / "open.html"
    shown = html.escape(url, quote=True)
    page = (f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={shown}">'
            f'<title>p2php web</title><p>Opening <a href="{shown}">the p2php page</a>…</p>\n')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(page)
    return path


def main(port: int = 8080, host: str = "127.0.0.1", open_browser: bool = True) -> int:
    """Serve the browser client until Ctrl-C; open it in the default browser unless told not to."""
    try:
        from p2php.web.server import new_key, serve
    except ImportError:
        print("p2php: `p2php web` needs the wsproto package: pip install 'p2php[ws]'", file=sys.stderr)
        return 2
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"p2php: warning: the page on {host} lets anyone who can reach it play your seat; prefer 127.0.0.1",
              file=sys.stderr)

    key = new_key()  # only the page opened at the address printed below plays (p2php.web.server)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(partial(serve, host, port, key=key))
            url = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{bound}/#key={key}"
            print(f"p2php web: open {url} (Ctrl-C to stop)", flush=True)
            if open_browser:  # (a worker thread: a console browser, w3m or lynx, runs until it ends, and it held this
                # loop, which then never served it the page; red-team rt8-disk)
                opener = launch_file(url)
                opened.append(opener)
                nursery.start_soon(partial(in_thread, webbrowser.open, opener.as_uri()))

    opened: list[Path] = []

    from p2php.session.netplay import run_trio  # (a Ctrl-C out of the nursery's exception group: one line, exit 0)

    try:
        run_trio(run)
    except KeyboardInterrupt:
        return 0
    except OSError as err:
        print(f"p2php: cannot serve on {host}:{port}: {err.strerror or err}", file=sys.stderr)
        return 2
    finally:
        for opener in opened:
            shutil.rmtree(opener.parent, ignore_errors=True)
    return 0
