"""``p2php web``: play in the browser — a local page that drives one peer through the bridge.

The page (``p2php/web/static``: plain HTML, CSS and JavaScript, no build step) talks the bridge's JSON
messages (docs/bridge.md) over a WebSocket to this process, which runs the peer: its keys, the dealing and the
audit never reach the browser, which sees only its own seat's view, like any bridge client. The server
(:mod:`p2php.web.server`) serves those files and that WebSocket on one loopback port.
"""

from __future__ import annotations

import sys
import webbrowser
from functools import partial

import trio

from p2php.threads import in_thread

__all__ = ["main"]


def open_once(url: str) -> bool:
    """Start the first browser ``webbrowser`` knows on ``url``, and no other.

    ``webbrowser.open`` tries each browser it knows in turn until one reports success: a first one that loaded the
    one-time launch address but exited non-zero was followed by a second on the same address, which was refused and
    had the person told that someone else had taken the key, though nobody had (red-team rv10-launch).
    """
    try:
        return webbrowser.get().open(url)
    except webbrowser.Error:  # (no browser at all: the printed address is there)
        return False


def main(port: int = 8080, host: str = "127.0.0.1", open_browser: bool = True) -> int:
    """Serve the browser client until Ctrl-C; open it in the default browser unless told not to."""
    try:
        from p2php.web.server import Launch, new_key, serve
    except ImportError:
        print("p2php: `p2php web` needs the wsproto package: pip install 'p2php[ws]'", file=sys.stderr)
        return 2
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"p2php: warning: the page on {host} lets anyone who can reach it play your seat; prefer 127.0.0.1",
              file=sys.stderr)

    key = new_key()  # only the page opened at the address printed below plays (p2php.web.server)

    def warn() -> None:
        print("p2php web: warning: the browser's launch address was used twice: another program on this machine may "
              "have read it from the browser's command line and taken the key. Stop p2php web (Ctrl-C) and start it "
              "again.", file=sys.stderr, flush=True)

    # The browser is started on a one-time address, never on the key: every user of the machine reads every
    # process's command line (ps, /proc/PID/cmdline), and the key plays this seat and has this process write files
    # where its user may (red-team rt10-web). No file is made for it (snap and flatpak browsers cannot open one in
    # /tmp, and a killed process leaves it behind: red-team rt10-launch).
    launch = Launch(key, warn) if open_browser else None

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(partial(serve, host, port, key=key, launch=launch))
            origin = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{bound}"
            url = f"{origin}/#key={key}"
            print(f"p2php web: open {url} (Ctrl-C to stop)", flush=True)
            if launch is not None:  # (a worker thread: a console browser, w3m or lynx, runs until it ends, and it held
                # this loop, which then never served it the page; red-team rt8-disk)
                nursery.start_soon(partial(in_thread, open_once, origin + launch.path()))

    from p2php.session.netplay import run_trio  # (a Ctrl-C out of the nursery's exception group: one line, exit 0)

    try:
        run_trio(run)
    except KeyboardInterrupt:
        return 0
    except OSError as err:
        print(f"p2php: cannot serve on {host}:{port}: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0
