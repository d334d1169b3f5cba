"""p2php: Harry Potter card and board games played peer to peer.

No server and no trusted dealer: every peer runs the same deterministic engine
(:mod:`p2php.engine`), only player actions travel over the network
(:mod:`p2php.session`, :mod:`p2php.net`), and hidden cards are dealt with
mental-poker cryptography (:mod:`p2php.crypto`).
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = 10
