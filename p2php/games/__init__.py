"""Games built on :mod:`p2php.engine` (each registers itself with the registry on import)."""
