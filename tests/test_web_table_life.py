"""Table life in Chromium: two pages host and join one table, chat (shown as text, never HTML), play it to the end
and click Rematch; a new game starts at the same table with a new safety code."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wsproto", reason="p2php web needs wsproto (the ws extra)")

TESTS = Path(__file__).parent
SERVER = ("import sys; sys.path.insert(0, sys.argv[1]); import toygame; from p2php.cli import main; "
          "sys.exit(main(['web', '--port', '0', '--no-browser']))")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


def _play_until_over(pages: list[Any], sync_api: Any, seconds: float) -> None:
    """Click the first action on every page until every page shows the game's end."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(p.is_visible("#over") for p in pages):
        for page in pages:
            buttons = page.query_selector_all("#actions button.action")
            if buttons:
                with contextlib.suppress(sync_api.Error):  # redrawn between finding and clicking
                    buttons[0].click(timeout=2_000)
        pages[0].wait_for_timeout(100)
    assert all(p.is_visible("#over") for p in pages), "the game did not end in time"


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine (.ci/run installs Debian's chromium)")
def test_two_pages_chat_play_and_rematch_in_chromium() -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(TESTS)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split("open ", 1)[1].split(" ", 1)[0]
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=_chromium(), args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            errors: list[str] = []
            ann, bob = browser.new_page(), browser.new_page()
            for page in (ann, bob):
                page.on("pageerror", lambda err: errors.append(str(err)))
                page.goto(url)
                page.wait_for_selector("#status.ok", timeout=30_000)
                page.select_option("#game", "toy")
            assert ann.is_visible("#bot-delay")  # the bots' speed, sent with demo and host
            ann.fill("#name", "ann")
            ann.fill("#bots", "1")  # a table for two: ann hosts, bob joins
            ann.click("#host")
            ann.wait_for_selector("#log li:has-text('table open on port')", timeout=30_000)
            port = re.search(r"port (\d+)", ann.text_content("#log") or "")
            assert port is not None
            bob.fill("#name", "bob")
            bob.fill("#address", f"127.0.0.1:{port.group(1)}")
            bob.click("#join")
            for page in (ann, bob):
                page.wait_for_selector("#table:not([hidden])", timeout=60_000)
                page.wait_for_selector("#chat-box:not([hidden])", timeout=10_000)
            first_code = ann.text_content("#safety")
            assert first_code == bob.text_content("#safety")

            ann.fill("#chat-text", "hello <b>bob</b>\u202e!")
            ann.click("#chat-send")
            bob.wait_for_selector("#chat-list li:has-text('hello')", timeout=10_000)
            line = bob.text_content("#chat-list li:has-text('hello')") or ""
            assert line == "ann: hello <b>bob</b>!"  # the bidi override is gone, the tags are text
            assert bob.query_selector("#chat-list b") is None
            assert ann.wait_for_selector("#chat-list li.own:has-text('hello')", timeout=10_000)

            _play_until_over([ann, bob], sync_api, 120)
            for page in (ann, bob):
                assert "audit: clean" in (page.text_content("#over") or "")
                page.click("#rematch")
            deadline = time.monotonic() + 60  # (no wait_for_function: the page's CSP forbids eval)
            while time.monotonic() < deadline and any(p.text_content("#safety") == first_code for p in (ann, bob)):
                ann.wait_for_timeout(100)
            for page in (ann, bob):
                assert page.text_content("#safety") != first_code, "the rematch did not start"
                assert page.is_hidden("#over")
            assert ann.text_content("#safety") == bob.text_content("#safety")
            _play_until_over([ann, bob], sync_api, 120)
            shots = Path(os.environ.get("P2PHP_WEB_SCREENSHOTS", "/tmp"))
            shots.mkdir(parents=True, exist_ok=True)
            bob.screenshot(path=str(shots / "p2php-web-table-life.png"))
            assert not errors, errors
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
