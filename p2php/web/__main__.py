"""``python -m p2php.web [PORT]``: serve the browser client without opening a browser (``p2php web`` opens one)."""

import sys

from p2php.web import main

raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 8080, open_browser=False))
